//! Links the `fsgate` executable at a fixed address on Linux with glibc.
//!
//! A position-independent executable is relocated by the loader at every start: about 270 KB
//! of its read-only data is written once and stays resident in every server, and the pages
//! touched on the way count too. Linked at a fixed address the executable needs no such
//! relocation; the libraries, heap and stack are still placed at random. See SECURITY.md.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
