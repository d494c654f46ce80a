//! Records the source tree's git revision at build time (`git describe
//! --always --dirty --abbrev=12`, empty outside a checkout), so that an
//! installed wheel's provenance names the commit it was built from.
use std::process::Command;

fn main() {
    let rev = Command::new("git")
        .args(["describe", "--always", "--dirty", "--abbrev=12"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    println!("cargo:rustc-env=TCPLAB_BUILD_GIT_REVISION={rev}");
    // Rebuild when HEAD moves (a new commit or checkout) or the index changes.
    for f in ["../../.git/HEAD", "../../.git/index"] {
        if std::path::Path::new(f).exists() {
            println!("cargo:rerun-if-changed={f}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
