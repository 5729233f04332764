//! Valgrind client requests without valgrind's C headers (the ctgrind
//! technique): memcheck's "undefined" marks the secrets, so any branch or
//! memory index that depends on them is reported as a use of uninitialised
//! data. Outside valgrind the requests are no-ops.

/// `VG_USERREQ_TOOL_BASE('M', 'C')`: memcheck's requests.
const MC_BASE: usize = ((b'M' as usize) << 24) | ((b'C' as usize) << 16);
const MAKE_MEM_UNDEFINED: usize = MC_BASE + 1;
const MAKE_MEM_DEFINED: usize = MC_BASE + 2;

/// `VALGRIND_DO_CLIENT_REQUEST_EXPR` for amd64 (valgrind.h): the magic
/// rotations of rdi (by 128 bits in all: no change) then `xchg rbx, rbx`,
/// with rax pointing at the request and its arguments; the result in rdx.
#[cfg(target_arch = "x86_64")]
fn client_request(request: usize, addr: usize, len: usize) -> usize {
    let args: [usize; 6] = [request, addr, len, 0, 0, 0];
    let mut result: usize = 0;
    // SAFETY: the sequence is a no-op on the real CPU; under valgrind it
    // reads the six words at `args` and writes rdx.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") args.as_ptr(),
            inout("rdi") 0usize => _,
            options(nostack),
        );
    }
    std::hint::black_box(&args);
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn client_request(_request: usize, _addr: usize, _len: usize) -> usize {
    0
}

/// Mark `x`'s bytes secret (undefined for memcheck).
pub fn secret<T: ?Sized>(x: &mut T) {
    let len = std::mem::size_of_val(x);
    client_request(MAKE_MEM_UNDEFINED, x as *mut T as *mut u8 as usize, len);
}

/// Declassify `x` (defined again): for the values that are public by
/// design, such as the accept / reject verdict handed back to the caller.
pub fn public<T: ?Sized>(x: &T) {
    let len = std::mem::size_of_val(x);
    client_request(MAKE_MEM_DEFINED, x as *const T as *const u8 as usize, len);
}

/// Declassify a byte buffer's contents (not only the `Vec` header).
pub fn public_bytes(x: &[u8]) {
    public(x);
}
