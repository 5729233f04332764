//! OpenSSL's EVP cipher interface, as much as the bench's OpenSSL rows call,
//! over the libcrypto that `build.rs` builds from the pinned `openssl-src`
//! (OpenSSL 4.0.3) and links statically. This module holds all of the
//! `peers` feature's `unsafe` code: the `extern "C"` declarations (their C
//! signatures are quoted from OpenSSL's `evp.h` and `crypto.h`) and the safe
//! types over them, [`OpensslAead`] and [`OpensslXts`].
//!
//! Why not the `openssl` crate: its `vendored` feature builds
//! `openssl-src` 300.x (OpenSSL 3.x), and pointing it at a 4.0 build instead
//! takes environment variables set before Cargo starts. Linking the crate
//! beside this build would put two libcryptos in one program.
//!
//! Every call checks OpenSSL's return value (1 is success) and turns a
//! failure into an error; nothing here panics.

use core::ffi::{CStr, c_char, c_int, c_void};
use core::ptr;

use anyhow::{Result, bail, ensure};

/// `EVP_CIPHER_CTX` (opaque).
#[repr(C)]
struct EvpCipherCtx {
    _opaque: [u8; 0],
}

/// `EVP_CIPHER` (opaque).
#[repr(C)]
struct EvpCipher {
    _opaque: [u8; 0],
}

/// `EVP_CTRL_AEAD_SET_IVLEN` (evp.h).
const EVP_CTRL_AEAD_SET_IVLEN: c_int = 0x9;
/// `EVP_CTRL_AEAD_GET_TAG` (evp.h).
const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
/// `OPENSSL_VERSION` (crypto.h): the text "OpenSSL x.y.z date".
const OPENSSL_VERSION: c_int = 0;

unsafe extern "C" {
    /// `EVP_CIPHER_CTX *EVP_CIPHER_CTX_new(void);`
    fn EVP_CIPHER_CTX_new() -> *mut EvpCipherCtx;
    /// `void EVP_CIPHER_CTX_free(EVP_CIPHER_CTX *c);`
    fn EVP_CIPHER_CTX_free(ctx: *mut EvpCipherCtx);
    /// `int EVP_EncryptInit_ex2(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *cipher,
    /// const unsigned char *key, const unsigned char *iv, const OSSL_PARAM params[]);`
    fn EVP_EncryptInit_ex2(
        ctx: *mut EvpCipherCtx,
        cipher: *const EvpCipher,
        key: *const u8,
        iv: *const u8,
        params: *const c_void,
    ) -> c_int;
    /// `int EVP_EncryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out,
    /// int *outl, const unsigned char *in, int inl);`
    fn EVP_EncryptUpdate(
        ctx: *mut EvpCipherCtx,
        out: *mut u8,
        outl: *mut c_int,
        input: *const u8,
        inl: c_int,
    ) -> c_int;
    /// `int EVP_EncryptFinal_ex(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl);`
    fn EVP_EncryptFinal_ex(ctx: *mut EvpCipherCtx, out: *mut u8, outl: *mut c_int) -> c_int;
    /// `int EVP_CIPHER_CTX_ctrl(EVP_CIPHER_CTX *ctx, int type, int arg, void *ptr);`
    fn EVP_CIPHER_CTX_ctrl(
        ctx: *mut EvpCipherCtx,
        kind: c_int,
        arg: c_int,
        ptr: *mut c_void,
    ) -> c_int;
    /// `int EVP_CIPHER_CTX_get_iv_length(const EVP_CIPHER_CTX *ctx);`
    fn EVP_CIPHER_CTX_get_iv_length(ctx: *const EvpCipherCtx) -> c_int;
    /// `int EVP_CIPHER_get_key_length(const EVP_CIPHER *cipher);`
    fn EVP_CIPHER_get_key_length(cipher: *const EvpCipher) -> c_int;
    /// `int EVP_CIPHER_get_iv_length(const EVP_CIPHER *cipher);`
    fn EVP_CIPHER_get_iv_length(cipher: *const EvpCipher) -> c_int;
    /// `int EVP_CIPHER_get_block_size(const EVP_CIPHER *cipher);`
    fn EVP_CIPHER_get_block_size(cipher: *const EvpCipher) -> c_int;
    /// `const EVP_CIPHER *EVP_aes_128_gcm(void);`
    fn EVP_aes_128_gcm() -> *const EvpCipher;
    /// `const EVP_CIPHER *EVP_aes_128_ocb(void);`
    fn EVP_aes_128_ocb() -> *const EvpCipher;
    /// `const EVP_CIPHER *EVP_aes_128_xts(void);`
    fn EVP_aes_128_xts() -> *const EvpCipher;
    /// `const char *OpenSSL_version(int type);`
    fn OpenSSL_version(kind: c_int) -> *const c_char;
}

/// The version text of the linked libcrypto, e.g. "OpenSSL 4.0.3 29 Sep 2026".
pub fn version() -> String {
    // SAFETY: `OpenSSL_version` takes any int and returns a pointer to a
    // static NUL-terminated string ("not available" for an unknown type),
    // never null; the string lives as long as the program.
    let text = unsafe { CStr::from_ptr(OpenSSL_version(OPENSSL_VERSION)) };
    text.to_string_lossy().into_owned()
}

/// The version of the `openssl-src` crate that built the linked libcrypto
/// (e.g. "400.0.2+4.0.3": its build metadata is the OpenSSL version).
pub const SOURCE_CRATE_VERSION: &str = env!("BLOCKMODES_OPENSSL_SRC");

/// The slack OpenSSL's in-place update asks for after a message: one block.
pub const SLACK: usize = 16;

/// The longest message the AEAD rows take in one update (the call's
/// length is a C `int`).
pub const MAX_MESSAGE: usize = 1 << 30;

/// The properties of one of OpenSSL's static cipher descriptions.
struct CipherInfo {
    key_len: c_int,
    iv_len: c_int,
    block_size: c_int,
}

/// Read a cipher description's lengths; `None` if OpenSSL gave none.
fn cipher_info(cipher: *const EvpCipher) -> Option<CipherInfo> {
    if cipher.is_null() {
        return None;
    }
    // SAFETY: `cipher` is a non-null pointer returned by one of the
    // `EVP_aes_128_*` functions: a static description that is never freed.
    // The getters only read it.
    unsafe {
        Some(CipherInfo {
            key_len: EVP_CIPHER_get_key_length(cipher),
            iv_len: EVP_CIPHER_get_iv_length(cipher),
            block_size: EVP_CIPHER_get_block_size(cipher),
        })
    }
}

/// An owned `EVP_CIPHER_CTX`, freed (its key wiped by OpenSSL) on drop.
/// Neither `Send` nor `Sync` (it holds a raw pointer): one thread uses it.
struct Ctx(ptr::NonNull<EvpCipherCtx>);

impl Ctx {
    fn new() -> Result<Ctx> {
        // SAFETY: no arguments; the result is null or a new context that
        // this value owns from here on.
        let raw = unsafe { EVP_CIPHER_CTX_new() };
        match ptr::NonNull::new(raw) {
            Some(p) => Ok(Ctx(p)),
            None => bail!("EVP_CIPHER_CTX_new failed"),
        }
    }

    fn as_ptr(&self) -> *mut EvpCipherCtx {
        self.0.as_ptr()
    }

    /// `EVP_EncryptInit_ex2` with each of cipher, key and IV optional (null:
    /// keep the context's). The key and IV must have the lengths the cipher
    /// takes; the callers check them against [`cipher_info`] or the context.
    fn encrypt_init(
        &mut self,
        cipher: Option<*const EvpCipher>,
        key: Option<&[u8]>,
        iv: Option<&[u8]>,
    ) -> Result<()> {
        let cipher = cipher.unwrap_or(ptr::null());
        let key = key.map_or(ptr::null(), <[u8]>::as_ptr);
        let iv = iv.map_or(ptr::null(), <[u8]>::as_ptr);
        // SAFETY: the context is live and exclusively borrowed; `cipher` is
        // null or a static description; `key` and `iv` are null or point to
        // slices the caller has checked hold the cipher's key and IV lengths
        // (OpenSSL reads exactly that many bytes, before returning); no
        // parameters (null).
        let ok = unsafe { EVP_EncryptInit_ex2(self.as_ptr(), cipher, key, iv, ptr::null()) };
        ensure!(ok == 1, "EVP_EncryptInit_ex2 failed");
        Ok(())
    }

    /// `EVP_EncryptUpdate` in place over `buf[..len]`; returns the bytes
    /// written at the start of `buf`. OpenSSL may write up to `len` plus one
    /// block less one byte: the caller leaves that room (`buf` is longer).
    fn update_in_place(&mut self, buf: &mut [u8], len: usize, room: usize) -> Result<usize> {
        ensure!(
            len.checked_add(room) <= Some(buf.len()),
            "no room after the message"
        );
        let inl = c_int::try_from(len)?;
        let mut outl: c_int = 0;
        let p = buf.as_mut_ptr();
        // SAFETY: the context is live and exclusively borrowed. `p` points
        // to `buf`, exclusively borrowed, of at least `len + room` bytes:
        // OpenSSL reads `len` bytes from `p` and writes at most `len` plus
        // its block size less one (the caller's `room`) to `p`, in place
        // (input and output the same pointer, which EVP allows); `outl` is
        // a live int.
        let ok = unsafe { EVP_EncryptUpdate(self.as_ptr(), p, &mut outl, p, inl) };
        ensure!(ok == 1, "EVP_EncryptUpdate failed");
        let done = usize::try_from(outl)?;
        ensure!(
            done <= len + room,
            "EVP_EncryptUpdate wrote past the buffer"
        );
        Ok(done)
    }

    /// `EVP_EncryptFinal_ex` into `tail` (at least [`SLACK`] bytes: OpenSSL
    /// writes at most one block); returns the bytes written.
    fn finalize(&mut self, tail: &mut [u8]) -> Result<usize> {
        ensure!(tail.len() >= SLACK, "no room for the last block");
        let mut outl: c_int = 0;
        // SAFETY: the context is live and exclusively borrowed; `tail` is an
        // exclusively borrowed buffer of at least one block, the most the
        // final call writes for a cipher of block size at most 16 (checked
        // at set-up); `outl` is a live int.
        let ok = unsafe { EVP_EncryptFinal_ex(self.as_ptr(), tail.as_mut_ptr(), &mut outl) };
        ensure!(ok == 1, "EVP_EncryptFinal_ex failed");
        let done = usize::try_from(outl)?;
        ensure!(done <= SLACK, "EVP_EncryptFinal_ex wrote past a block");
        Ok(done)
    }

    /// `EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, len, NULL)`.
    fn set_iv_length(&mut self, len: usize) -> Result<()> {
        let len = c_int::try_from(len)?;
        // SAFETY: the context is live and exclusively borrowed; this control
        // takes its argument in `arg` and does not use `ptr` (null).
        let ok = unsafe {
            EVP_CIPHER_CTX_ctrl(self.as_ptr(), EVP_CTRL_AEAD_SET_IVLEN, len, ptr::null_mut())
        };
        ensure!(ok == 1, "setting the IV length failed");
        Ok(())
    }

    /// The context's IV length.
    fn iv_length(&self) -> c_int {
        // SAFETY: the context is live; the getter only reads it.
        unsafe { EVP_CIPHER_CTX_get_iv_length(self.as_ptr()) }
    }

    /// `EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag)`.
    fn tag(&mut self) -> Result<[u8; 16]> {
        let mut tag = [0u8; 16];
        // SAFETY: the context is live and exclusively borrowed; this control
        // writes `arg` (16) bytes to `ptr`, which points to the 16-byte
        // `tag`.
        let ok = unsafe {
            EVP_CIPHER_CTX_ctrl(
                self.as_ptr(),
                EVP_CTRL_AEAD_GET_TAG,
                16,
                tag.as_mut_ptr().cast(),
            )
        };
        ensure!(ok == 1, "reading the tag failed");
        Ok(tag)
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: the context was made by `EVP_CIPHER_CTX_new`, is owned by
        // this value alone and is freed once, here.
        unsafe { EVP_CIPHER_CTX_free(self.as_ptr()) }
    }
}

/// An OpenSSL AEAD context (AES-128-OCB or AES-128-GCM) keyed once:
/// 12-byte nonces, 16-byte tags, no associated data.
pub struct OpensslAead {
    ctx: Ctx,
}

impl OpensslAead {
    /// AES-128-OCB (OCB3, RFC 7253).
    pub fn ocb3(key: &[u8; 16]) -> Result<Self> {
        // SAFETY: no arguments; returns a static description (or null,
        // which `new` refuses).
        Self::new(unsafe { EVP_aes_128_ocb() }, key)
    }

    /// AES-128-GCM.
    pub fn gcm(key: &[u8; 16]) -> Result<Self> {
        // SAFETY: as in `ocb3`.
        Self::new(unsafe { EVP_aes_128_gcm() }, key)
    }

    /// Choose the cipher, set 12-byte nonces, then the key (its schedule is
    /// computed here, once).
    fn new(cipher: *const EvpCipher, key: &[u8; 16]) -> Result<Self> {
        let Some(info) = cipher_info(cipher) else {
            bail!("OpenSSL has no such cipher")
        };
        ensure!(
            usize::try_from(info.key_len) == Ok(key.len()),
            "unexpected key length"
        );
        ensure!(
            (1..=SLACK as c_int).contains(&info.block_size),
            "block larger than the slack"
        );
        let mut ctx = Ctx::new()?;
        ctx.encrypt_init(Some(cipher), None, None)?;
        ctx.set_iv_length(NONCE_LEN)?;
        ensure!(
            ctx.iv_length() == NONCE_LEN as c_int,
            "nonce length not taken"
        );
        ctx.encrypt_init(None, Some(key), None)?;
        Ok(Self { ctx })
    }

    /// Encrypt the first `len` bytes of `buf` in place under `nonce` and
    /// return the 16-byte tag. `buf` must hold at least [`SLACK`] bytes after
    /// the message (OpenSSL may write a block there before it is complete;
    /// the ciphertext ends up in `buf[..len]`); `len` is at most
    /// [`MAX_MESSAGE`].
    pub fn encrypt_in_place(
        &mut self,
        nonce: &[u8; NONCE_LEN],
        buf: &mut [u8],
        len: usize,
    ) -> Result<[u8; 16]> {
        ensure!(
            len <= MAX_MESSAGE,
            "message longer than {MAX_MESSAGE} bytes"
        );
        // The context's IV length is NONCE_LEN (checked at set-up).
        self.ctx.encrypt_init(None, None, Some(nonce))?;
        let done = self.ctx.update_in_place(buf, len, SLACK)?;
        let Some(tail) = buf.get_mut(done..) else {
            bail!("OpenSSL wrote past the buffer")
        };
        let last = self.ctx.finalize(tail)?;
        ensure!(
            done + last == len,
            "OpenSSL returned {} of {len} bytes",
            done + last
        );
        self.ctx.tag()
    }
}

/// The nonce length of [`OpensslAead`].
pub const NONCE_LEN: usize = 12;

/// An OpenSSL AES-128-XTS context keyed once with a data key and a tweak key.
pub struct OpensslXts {
    ctx: Ctx,
}

impl OpensslXts {
    /// Key the context: `data_key` enciphers the blocks, `tweak_key` the
    /// tweaks (OpenSSL refuses two equal halves).
    pub fn new(data_key: &[u8; 16], tweak_key: &[u8; 16]) -> Result<Self> {
        // SAFETY: as in `OpensslAead::ocb3`.
        let cipher = unsafe { EVP_aes_128_xts() };
        let Some(info) = cipher_info(cipher) else {
            bail!("OpenSSL has no AES-128-XTS")
        };
        ensure!(info.key_len == 32, "unexpected key length");
        ensure!(info.iv_len == 16, "unexpected tweak length");
        ensure!(info.block_size == 1, "XTS must take whole units in place");
        let mut key = zeroize::Zeroizing::new([0u8; 32]);
        key[..16].copy_from_slice(data_key);
        key[16..].copy_from_slice(tweak_key);
        let mut ctx = Ctx::new()?;
        ctx.encrypt_init(Some(cipher), Some(&key[..]), None)?;
        Ok(Self { ctx })
    }

    /// Encrypt `buf` in place as data units of `unit` bytes (at least 16, at
    /// most 16 MiB), unit i under the tweak `first + i` as a 16-byte
    /// little-endian integer; `buf` holds whole units.
    pub fn encrypt_units(&mut self, first: u128, unit: usize, buf: &mut [u8]) -> Result<()> {
        ensure!(
            (16..=1 << 24).contains(&unit),
            "XTS data unit of {unit} bytes"
        );
        ensure!(buf.len().is_multiple_of(unit), "not whole data units");
        for (i, data) in buf.chunks_exact_mut(unit).enumerate() {
            let tweak = first.wrapping_add(i as u128).to_le_bytes();
            self.ctx.encrypt_init(None, None, Some(&tweak))?;
            // XTS's block size is 1 (checked at set-up): no room needed.
            let done = self.ctx.update_in_place(data, unit, 0)?;
            ensure!(done == unit, "OpenSSL XTS returned {done} of {unit} bytes");
        }
        Ok(())
    }
}
