//! Sets `cfg(vmath_avx512)` when the compiler accepts `#[target_feature(enable =
//! "avx512f")]` (Rust 1.89 or newer): the lane functions of `src/vmath.rs` then get an
//! AVX-512 copy, chosen at run time on CPUs that have it. With an older compiler (the
//! workspace's minimum is 1.85) the AVX2 and baseline copies are the only ones.

use std::process::Command;

/// The minor version of `rustc 1.MINOR.PATCH ...`, if the compiler says it.
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC")?;
    let out = Command::new(rustc).arg("--version").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split('.');
    if parts.next()? != "1" {
        return None;
    }
    parts.next()?.parse().ok()
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(vmath_avx512)");
    println!("cargo::rerun-if-changed=build.rs");
    if rustc_minor().is_some_and(|minor| minor >= 89) {
        println!("cargo::rustc-cfg=vmath_avx512");
    }
}
