//! NVRTC, the compile step of the CUDA device: a missing library is a typed error that says
//! where to point; with NVRTC present (`SIMDNLP_NVRTC_LIB`, as `.ci/run` installs it from
//! PyPI), the IPM kernels compile to PTX with every kernel, no atomics and no shared memory,
//! and a broken source is a compile error carrying NVRTC's log.

use simdnlp_device::{DeviceError, IPM_KERNELS, NVRTC_LIB_ENV, Nvrtc};
use std::path::Path;

#[test]
fn a_missing_library_says_where_to_point() {
    let err = Nvrtc::open(Path::new("/nonexistent/libnvrtc.so.13")).unwrap_err();
    let DeviceError::Unavailable { device, reason } = &err else {
        panic!("expected Unavailable, got {err:?}");
    };
    assert_eq!(*device, "cuda");
    assert!(reason.contains("/nonexistent/libnvrtc.so.13"), "{reason}");
    assert!(reason.contains(NVRTC_LIB_ENV), "{reason}");
    assert!(reason.contains("LD_LIBRARY_PATH"), "{reason}");
}

/// NVRTC from `SIMDNLP_NVRTC_LIB`; `None` (the test prints why and passes) when the
/// variable is unset. When it is set, a library that does not load fails the test.
fn nvrtc() -> Option<Nvrtc> {
    if std::env::var_os(NVRTC_LIB_ENV).is_none_or(|v| v.is_empty()) {
        eprintln!("skipped: {NVRTC_LIB_ENV} is not set (no NVRTC to compile with)");
        return None;
    }
    Some(Nvrtc::load().unwrap_or_else(|e| panic!("{NVRTC_LIB_ENV} is set but: {e}")))
}

/// Number of `extern "C" __global__` kernels declared in a source.
fn declared_kernels(source: &str) -> usize {
    source.matches("__global__").count()
}

#[test]
fn ipm_kernels_compile_to_ptx() {
    let Some(nvrtc) = nvrtc() else { return };
    let ptx = nvrtc
        .compile(IPM_KERNELS, "ipm.cu", "compute_90")
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!(
        "NVRTC {:?} ({}): {} kernels, {} bytes of PTX",
        nvrtc.version(),
        nvrtc.library(),
        ptx.entries(),
        ptx.text.len()
    );
    assert_eq!(ptx.entries(), declared_kernels(IPM_KERNELS));
    assert!(ptx.entries() >= 34);
    // deterministic reductions: no atomics, no shared-memory trees
    assert!(!ptx.text.contains("atom."), "atomics in the IPM kernels");
    assert!(
        !ptx.text.contains(".shared"),
        "shared memory in the IPM kernels"
    );
    // --fmad=false: no contracted multiply-adds. The one FMA user is the logarithm of
    // `sum_ln` (CUDA's `log` is written with FMAs on purpose; that is its implementation,
    // not a contraction of ours).
    let with_fma: Vec<&str> = ptx
        .text
        .split(".entry ")
        .skip(1)
        .filter(|kernel| kernel.contains("fma.rn"))
        .map(|kernel| kernel.split('(').next().unwrap_or(""))
        .collect();
    assert_eq!(
        with_fma,
        ["sn_sum_ln_part"],
        "contracted FMA despite --fmad=false"
    );
}

/// The CUDA device checks every launch against the parameter sizes in the PTX: every IPM
/// kernel has its list, `long long`, `double` and pointers take 8 bytes.
#[test]
fn ptx_declares_the_parameter_sizes_of_every_kernel() {
    let Some(nvrtc) = nvrtc() else { return };
    let ptx = nvrtc
        .compile(IPM_KERNELS, "ipm.cu", "compute_90")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(ptx.param_sizes("sn_axpy"), Some(vec![8; 4]), "{}", ptx.text);
    assert_eq!(ptx.param_sizes("sn_seg_pair_sum"), Some(vec![8; 8]));
    for line in IPM_KERNELS.lines() {
        if let Some(rest) = line.strip_prefix("extern \"C\" __global__ void ") {
            let name = &rest[..rest.find('(').unwrap()];
            let sizes = ptx.param_sizes(name).unwrap_or_else(|| panic!("{name}"));
            assert!(
                !sizes.is_empty() && sizes.iter().all(|&b| b == 8 || b == 4),
                "{name}"
            );
        }
    }
}

#[test]
fn a_broken_source_is_a_compile_error_with_the_log() {
    let Some(nvrtc) = nvrtc() else { return };
    let err = nvrtc
        .compile(
            "extern \"C\" __global__ void k(double* x) { x[0] = undeclared; }",
            "broken.cu",
            "compute_90",
        )
        .unwrap_err();
    let DeviceError::Compile { log, .. } = &err else {
        panic!("expected Compile, got {err:?}");
    };
    assert!(log.contains("broken.cu"), "{log}");
    assert!(log.contains("undeclared"), "{log}");
}
