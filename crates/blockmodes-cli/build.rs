//! Build script of the `blockmodes` command. Without the cargo feature
//! `peers` it does nothing.
//!
//! With `peers`, it builds OpenSSL from the pinned `openssl-src` crate
//! (OpenSSL 4.0.3: `Configure`, `make`, with the crate's own settings: static
//! libraries, no shared objects, no modules, `-O2`) and links its libcrypto
//! statically into the command, for the bench's OpenSSL rows
//! (`src/bench/peers/openssl.rs` declares the functions they call). No
//! system OpenSSL or headers are used; a C compiler, `make` and `perl` are.
//!
//! The build takes minutes, so its result is kept once per target directory,
//! not per profile or per build-script hash: `target/openssl-src/<version of
//! openssl-src>-<target triple>/`, found from `OUT_DIR` by walking up to the
//! directory that holds Cargo's `CACHEDIR.TAG` (the target directory). So
//! `cargo clippy`, `cargo test` and `cargo build --release` with `peers`
//! build OpenSSL once between them. The directory appears by an atomic
//! rename of a finished build; delete it to force a rebuild.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    #[cfg(feature = "peers")]
    openssl::link();
}

#[cfg(feature = "peers")]
mod openssl {
    use std::env;
    use std::fs;
    use std::path::{Path, PathBuf};

    /// Build (or find) OpenSSL and tell Cargo to link its libcrypto.
    pub fn link() {
        let out = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
        let target = env::var("TARGET").expect("cargo sets TARGET");
        let version = openssl_src::version();
        let dir = cache_root(&out)
            .join("openssl-src")
            .join(format!("{version}-{target}"));
        let lib_dir = dir.join("install").join("lib");
        let (lib, file) = if target.contains("msvc") {
            ("libcrypto", "libcrypto.lib")
        } else {
            ("crypto", "libcrypto.a")
        };
        if !lib_dir.join(file).is_file() {
            build(&dir);
        }
        // Run again if the cached library goes away (the search path would
        // then name a directory without it).
        println!("cargo:rerun-if-changed={}", lib_dir.join(file).display());
        println!("cargo:rustc-link-search=native={}", lib_dir.display());
        println!("cargo:rustc-link-lib=static={lib}");
        // The crate version, for the bench header beside the library's own
        // version string (they must agree: tests/bench_peers.rs).
        println!("cargo:rustc-env=BLOCKMODES_OPENSSL_SRC={version}");
    }

    /// The target directory (the nearest ancestor of `out` with Cargo's
    /// `CACHEDIR.TAG`), or `out` itself if there is none.
    fn cache_root(out: &Path) -> PathBuf {
        out.ancestors()
            .find(|d| d.join("CACHEDIR.TAG").is_file())
            .unwrap_or(out)
            .to_path_buf()
    }

    /// Build OpenSSL into a private directory beside `dir`, then rename it to
    /// `dir`. If another build got there first, keep its result.
    fn build(dir: &Path) {
        let mut name = dir.file_name().expect("a named directory").to_owned();
        name.push(format!(".tmp-{}", std::process::id()));
        let tmp = dir.with_file_name(name);
        if tmp.exists() {
            fs::remove_dir_all(&tmp).expect("remove a stale OpenSSL build directory");
        }
        fs::create_dir_all(&tmp).expect("create the OpenSSL build directory");
        openssl_src::Build::new().out_dir(&tmp).build();
        if let Err(e) = fs::rename(&tmp, dir) {
            let _ = fs::remove_dir_all(&tmp);
            assert!(
                dir.join("install").join("lib").is_dir(),
                "cannot move the OpenSSL build to {}: {e}",
                dir.display()
            );
        }
    }
}
