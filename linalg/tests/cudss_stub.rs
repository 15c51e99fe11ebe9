//! The cuDSS layer checked without a GPU, against a stand-in library (`cudss_stub.cpp`,
//! compiled by g++ here) that exports every cuDSS symbol we call, logs each call with all its
//! arguments, answers `cudssGetProperty` as the version a test chooses, returns canned
//! INFO/INERTIA values and rejects wrong argument kinds, enum ranges and sizes.
//!
//! What this settles: arity and argument order of every call, the enum values per ABI
//! version (0.7.1 and the 0.8/1.0 renumbering, `offsetType`), the refusal of newer versions
//! without `SIMDNLP_CUDSS_ALLOW_NEWER`, the load-failure message, the call sequence (ANALYSIS
//! once, FACTORIZATION then REFACTORIZATION with INFO reset, SOLVE per right-hand side,
//! destruction order), the INFO/INERTIA verdict, and typed errors naming the failing call.
//! What it cannot settle (needs a device, GPU.md §7 stage 4): that real cuDSS computes what
//! the header promises with these arguments (residuals vs faer, inertia vs eigenvalues,
//! INFO on an indefinite SPD matrix, REFACTORIZATION after a value change, two live handles).
//!
//! g++ is required (CI installs it); `SIMDNLP_SKIP_GXX=1` skips these tests on a machine
//! without a C++ compiler, with a printed reason.

use std::ffi::{CString, c_char, c_int, c_long, c_void};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use simdnlp_linalg::cudss::{
    AbiFamily, CudssError, CudssFactorization, CudssLibrary, CudssOptions, CudssReordering,
    CudssSolver, CudssVersion, DEFAULT_SONAMES, DeviceCsc, LoadOptions,
};
use simdnlp_linalg::{FactorStatus, Inertia};

/// Builds the stand-in once per test process; `None` when g++ is missing and skipping is
/// allowed.
fn stub_binary() -> Option<&'static Path> {
    static BUILT: OnceLock<Option<PathBuf>> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("cudss-stub-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            let lib = dir.join("libcudss.so.0");
            let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cudss_stub.cpp");
            let out = match Command::new("g++")
                .args(["-std=c++17", "-O1", "-shared", "-fPIC", "-Wall", "-o"])
                .arg(&lib)
                .arg(&source)
                .output()
            {
                Ok(out) => out,
                Err(e) => {
                    assert!(
                        std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
                        "g++ is required for the cuDSS stand-in tests: {e}"
                    );
                    eprintln!("g++ not available ({e}); skipping the cuDSS stand-in tests");
                    return None;
                }
            };
            assert!(
                out.status.success(),
                "g++ failed on {}:\n{}",
                source.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            Some(lib)
        })
        .as_deref()
}

/// One private copy of the stand-in (its own globals: tests run in parallel threads) with
/// its control functions.
struct Stub {
    path: PathBuf,
    log: PathBuf,
    control: libloading::Library,
}

/// One logged call: its name and its `key=value` arguments in order.
#[derive(Debug, Clone)]
struct Call {
    name: String,
    args: Vec<(String, String)>,
}

impl Call {
    fn get(&self, key: &str) -> &str {
        self.args
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("{} has no argument {key}: {self:?}", self.name))
    }
    fn line(&self) -> String {
        let mut s = self.name.clone();
        for (k, v) in &self.args {
            s.push_str(&format!(" {k}={v}"));
        }
        s
    }
}

impl Stub {
    fn new(test: &str, version: (i32, i32, i32)) -> Option<Self> {
        let built = stub_binary()?;
        let dir = built.parent().unwrap().join(test);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("libcudss.so.0");
        std::fs::copy(built, &path).unwrap();
        let log = dir.join("calls.log");
        let _ = std::fs::remove_file(&log);
        // SAFETY: the stand-in has no initializers beyond C++ statics.
        let control = unsafe { libloading::Library::new(&path) }.unwrap();
        let stub = Self { path, log, control };
        let c_log = CString::new(stub.log.to_str().unwrap()).unwrap();
        // SAFETY: `stub_configure(const char*, int, int, int)` in cudss_stub.cpp.
        unsafe {
            let configure: libloading::Symbol<
                unsafe extern "C" fn(*const c_char, c_int, c_int, c_int),
            > = stub.control.get(b"stub_configure\0").unwrap();
            configure(c_log.as_ptr().cast(), version.0, version.1, version.2);
        }
        Some(stub)
    }

    fn options(&self, allow_newer: bool) -> LoadOptions {
        LoadOptions {
            path: Some(self.path.clone()),
            sonames: Vec::new(),
            allow_newer,
        }
    }

    fn load(&self, allow_newer: bool) -> Arc<CudssLibrary> {
        CudssLibrary::load(&self.options(allow_newer)).unwrap()
    }

    fn set_info(&self, info: i32) {
        // SAFETY: `stub_set_info(int)` in cudss_stub.cpp.
        unsafe {
            let f: libloading::Symbol<unsafe extern "C" fn(c_int)> =
                self.control.get(b"stub_set_info\0").unwrap();
            f(info);
        }
    }

    fn set_inertia(&self, positive: i32, negative: i32) {
        // SAFETY: `stub_set_inertia(int, int)` in cudss_stub.cpp.
        unsafe {
            let f: libloading::Symbol<unsafe extern "C" fn(c_int, c_int)> =
                self.control.get(b"stub_set_inertia\0").unwrap();
            f(positive, negative);
        }
    }

    fn set_npivots(&self, count: i32) {
        // SAFETY: `stub_set_npivots(int)` in cudss_stub.cpp.
        unsafe {
            let f: libloading::Symbol<unsafe extern "C" fn(c_int)> =
                self.control.get(b"stub_set_npivots\0").unwrap();
            f(count);
        }
    }

    /// The `skip + 1`-th call of `name` returns `status` (once).
    fn fail(&self, name: &str, status: i32, skip: i32) {
        let c_name = CString::new(name).unwrap();
        // SAFETY: `stub_fail(const char*, int, int)` in cudss_stub.cpp (copies the name).
        unsafe {
            let f: libloading::Symbol<unsafe extern "C" fn(*const c_char, c_int, c_int)> =
                self.control.get(b"stub_fail\0").unwrap();
            f(c_name.as_ptr().cast(), status, skip);
        }
    }

    fn live_objects(&self) -> c_long {
        // SAFETY: `long stub_live_objects()` in cudss_stub.cpp.
        unsafe {
            let f: libloading::Symbol<unsafe extern "C" fn() -> c_long> =
                self.control.get(b"stub_live_objects\0").unwrap();
            f()
        }
    }

    fn calls(&self) -> Vec<Call> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines()
            .map(|line| {
                let mut parts = line.split(' ');
                let name = parts.next().unwrap().to_owned();
                let args = parts
                    .map(|kv| {
                        let (k, v) = kv.split_once('=').unwrap();
                        (k.to_owned(), v.to_owned())
                    })
                    .collect();
                Call { name, args }
            })
            .collect()
    }

    /// The logged calls after the version query, as lines.
    fn lines_after_version(&self) -> Vec<String> {
        self.calls()
            .into_iter()
            .filter(|c| c.name != "cudssGetProperty")
            .map(|c| c.line())
            .collect()
    }
}

/// Fake device addresses (the stand-in never dereferences them).
const COL_PTR: u64 = 0x1000;
const ROW_IDX: u64 = 0x2000;
const VALUES: u64 = 0x3000;
const VALUES_2: u64 = 0x3800;
const RHS: u64 = 0x4000;
const RHS_2: u64 = 0x4800;
const STREAM: usize = 0x5000;

fn pattern(n: usize, nnz: usize) -> DeviceCsc {
    DeviceCsc {
        n,
        nnz,
        col_ptr: COL_PTR,
        row_idx: ROW_IDX,
        values: VALUES,
    }
}

fn stream() -> *mut c_void {
    STREAM as *mut c_void
}

fn solver(library: &Arc<CudssLibrary>, options: CudssOptions) -> CudssSolver {
    // SAFETY: the stand-in never dereferences the stream.
    unsafe { CudssSolver::new(library.clone(), stream(), options) }.unwrap()
}

/// A 0.7.1 stand-in for `test`, its library and one solver with `options`.
fn setup(test: &str, options: CudssOptions) -> Option<(Stub, Arc<CudssLibrary>, CudssSolver)> {
    let stub = Stub::new(test, (0, 7, 1))?;
    let library = stub.load(false);
    let solver = solver(&library, options);
    Some((stub, library, solver))
}

fn inertia(positive: usize, negative: usize, zero: usize) -> Option<Inertia> {
    Some(Inertia {
        positive,
        negative,
        zero,
    })
}

/// The enum values a test expects, written from the headers independently of the crate.
struct Expected {
    pivot_type: i32,
    pivot_threshold: i32,
    pivot_epsilon: i32,
    host_nthreads: i32,
    deterministic_mode: i32,
    nd_nlevels: i32,
    pivot_none: i32,
    offset_type: bool,
}

const V0_7: Expected = Expected {
    pivot_type: 8,
    pivot_threshold: 9,
    pivot_epsilon: 10,
    host_nthreads: 15,
    deterministic_mode: 25,
    nd_nlevels: 18,
    pivot_none: 2,
    offset_type: false,
};

const V0_8: Expected = Expected {
    pivot_type: 7,
    pivot_threshold: 8,
    pivot_epsilon: 9,
    host_nthreads: 14,
    deterministic_mode: 24,
    nd_nlevels: 17,
    pivot_none: 1,
    offset_type: true,
};

/// Runs a full life cycle and compares every logged call, argument by argument.
fn full_sequence(test: &str, version: (i32, i32, i32), allow_newer: bool, expect: &Expected) {
    let Some(stub) = Stub::new(test, version) else {
        return;
    };
    let library = stub.load(allow_newer);
    assert_eq!(
        library.version(),
        CudssVersion {
            major: version.0,
            minor: version.1,
            patch: version.2
        }
    );
    let options = CudssOptions {
        factorization: CudssFactorization::Ldlt,
        pivoting: false,
        pivot_threshold: Some(0.5),
        pivot_epsilon: Some(1e-12),
        host_ordering: None,
        reordering: CudssReordering::Alg3,
        host_threads: 4,
        // refused with 0.7.x (its solves never returned on an H100)
        deterministic: expect.deterministic_mode != V0_7.deterministic_mode,
        nd_levels: Some(6),
    };
    let mut solver = solver(&library, options);
    stub.set_inertia(3, 0);
    stub.set_npivots(2);
    // a fill-reducing ordering from the host (`perm[new] = old`) replaces cuDSS's own
    solver.set_user_permutation(Some(&[2, 0, 1])).unwrap();
    // SAFETY (this block): the stand-in never dereferences device pointers.
    unsafe {
        solver.analyze(pattern(3, 5)).unwrap();
        assert_eq!(solver.factorize(VALUES).unwrap(), FactorStatus::Success);
        assert_eq!(solver.inertia(), inertia(3, 0, 0));
        solver.solve_in_place(RHS).unwrap();
        solver.solve_in_place(RHS).unwrap();
        solver.solve_in_place(RHS_2).unwrap();
        stub.set_inertia(2, 1);
        assert_eq!(solver.factorize(VALUES_2).unwrap(), FactorStatus::Success);
        assert_eq!(solver.inertia(), inertia(2, 1, 0));
        solver.solve_in_place(RHS_2).unwrap();
    }
    assert_eq!(solver.pivot_count().unwrap(), 2);
    drop(solver);
    assert_eq!(stub.live_objects(), 0, "every created object destroyed");

    let calls = stub.calls();
    let props: Vec<String> = calls
        .iter()
        .filter(|c| c.name == "cudssGetProperty")
        .map(Call::line)
        .collect();
    assert_eq!(
        props,
        [
            format!("cudssGetProperty type=0 value={} status=0", version.0),
            format!("cudssGetProperty type=1 value={} status=0", version.1),
            format!("cudssGetProperty type=2 value={} status=0", version.2),
        ]
    );
    let out = |name: &str| -> Vec<String> {
        calls
            .iter()
            .filter(|c| c.name == name)
            .map(|c| c.get("out").to_owned())
            .collect()
    };
    let (h, c, d) = (
        out("cudssCreate")[0].clone(),
        out("cudssConfigCreate")[0].clone(),
        out("cudssDataCreate")[0].clone(),
    );
    let a = out("cudssMatrixCreateCsr")[0].clone();
    let dense = out("cudssMatrixCreateDn");
    let (x, b) = (dense[0].clone(), dense[1].clone());
    let offset = if expect.offset_type {
        " offsetType=10"
    } else {
        ""
    };
    let exec = |phase: i32| {
        format!(
            "cudssExecute handle={h} phase={phase} config={c} data={d} A={a} x={x} b={b} status=0"
        )
    };
    let expected = [
        format!("cudssCreate out={h} status=0"),
        format!("cudssSetStream handle={h} stream={STREAM} status=0"),
        // the multi-threaded mode: the threading layer beside the library, then HOST_NTHREADS
        format!(
            "cudssSetThreadingLayer handle={h} layer={} status=0",
            stub.path
                .with_file_name("libcudss_mtlayer_gomp.so.0")
                .display()
        ),
        format!("cudssConfigCreate out={c} status=0"),
        // CUDSS_CONFIG_REORDERING_ALG is 0 and CUDSS_ALG_3 is 3 in every version
        format!("cudssConfigSet config={c} param=0 size=4 value=3 status=0"),
        format!(
            "cudssConfigSet config={c} param={} size=4 value=6 status=0",
            expect.nd_nlevels
        ),
        format!(
            "cudssConfigSet config={c} param={} size=4 value={} status=0",
            expect.pivot_type, expect.pivot_none
        ),
        format!(
            "cudssConfigSet config={c} param={} size=8 value=0.5 status=0",
            expect.pivot_threshold
        ),
        format!(
            "cudssConfigSet config={c} param={} size=8 value=9.9999999999999998e-13 status=0",
            expect.pivot_epsilon
        ),
        format!(
            "cudssConfigSet config={c} param={} size=4 value=4 status=0",
            expect.host_nthreads
        ),
    ];
    let deterministic = format!(
        "cudssConfigSet config={c} param={} size=4 value=1 status=0",
        expect.deterministic_mode
    );
    let expected = expected
        .into_iter()
        .chain(options.deterministic.then_some(deterministic))
        .chain([
        format!("cudssDataCreate handle={h} out={d} status=0"),
        // Lower CSC passed as the upper CSR: rowStart = col_ptr, colIndices = row_idx.
        format!(
            "cudssMatrixCreateCsr out={a} nrows=3 ncols=3 nnz=5 rowStart={COL_PTR} rowEnd=0 \
             colIndices={ROW_IDX} values={VALUES}{offset} indexType=10 valueType=1 mtype=1 \
             mview=2 indexBase=0 status=0"
        ),
        format!(
            "cudssMatrixCreateDn out={x} nrows=3 ncols=1 ld=3 values=0 valueType=1 layout=0 status=0"
        ),
        format!(
            "cudssMatrixCreateDn out={b} nrows=3 ncols=1 ld=3 values=0 valueType=1 layout=0 status=0"
        ),
        // The host's ordering (USER_PERM, n ints) before ANALYSIS.
        format!("cudssDataSet handle={h} data={d} param=9 size=12 value=2,0,1 status=0"),
        exec(3),
        // First numeric factorization: FACTORIZATION, then INFO and INERTIA.
        exec(4),
        format!("cudssDataGet handle={h} data={d} param=0 size=4 value=0 status=0"),
        format!("cudssDataGet handle={h} data={d} param=3 size=8 value=3,0 status=0"),
        // Solve in place: x and b both point at the right-hand side, bound once per buffer.
        format!("cudssMatrixSetValues matrix={b} values={RHS} status=0"),
        format!("cudssMatrixSetValues matrix={x} values={RHS} status=0"),
        exec(1008),
        exec(1008),
        format!("cudssMatrixSetValues matrix={b} values={RHS_2} status=0"),
        format!("cudssMatrixSetValues matrix={x} values={RHS_2} status=0"),
        exec(1008),
        // New values buffer: rebound; later factorizations are REFACTORIZATION with INFO reset.
        format!("cudssMatrixSetValues matrix={a} values={VALUES_2} status=0"),
        format!("cudssDataSet handle={h} data={d} param=0 size=4 value=0 status=0"),
        exec(8),
        format!("cudssDataGet handle={h} data={d} param=0 size=4 value=0 status=0"),
        format!("cudssDataGet handle={h} data={d} param=3 size=8 value=2,1 status=0"),
        exec(1008),
        format!("cudssDataGet handle={h} data={d} param=2 size=4 value=2 status=0"),
        // Drop: descriptors, data (with its handle), configuration, handle.
        format!("cudssMatrixDestroy matrix={b} status=0"),
        format!("cudssMatrixDestroy matrix={x} status=0"),
        format!("cudssMatrixDestroy matrix={a} status=0"),
        format!("cudssDataDestroy handle={h} data={d} status=0"),
        format!("cudssConfigDestroy config={c} status=0"),
        format!("cudssDestroy handle={h} status=0"),
        ])
        .collect::<Vec<_>>();
    let got = stub.lines_after_version();
    for (k, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(g, e, "call {k} differs");
    }
    assert_eq!(got.len(), expected.len(), "calls: {got:#?}");
}

#[test]
fn call_sequence_and_enums_of_0_7_1() {
    full_sequence("seq071", (0, 7, 1), false, &V0_7);
}

#[test]
fn deterministic_mode_is_refused_with_0_7() {
    let Some(stub) = Stub::new("det071", (0, 7, 1)) else {
        return;
    };
    let library = stub.load(false);
    let options = CudssOptions {
        deterministic: true,
        ..CudssOptions::default()
    };
    // SAFETY: the stand-in never dereferences the stream, and the call is refused first.
    let err = unsafe { CudssSolver::new(library.clone(), stream(), options) }.unwrap_err();
    assert!(
        matches!(
            err,
            CudssError::InvalidArgument {
                what: "CudssOptions::deterministic",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("0.7.1"), "{err}");
    assert_eq!(stub.live_objects(), 0, "nothing created");
}

#[test]
fn call_sequence_and_enums_of_0_8_0_with_the_switch() {
    full_sequence("seq080", (0, 8, 0), true, &V0_8);
}

#[test]
fn call_sequence_and_enums_of_1_0_0_with_the_switch() {
    full_sequence("seq100", (1, 0, 0), true, &V0_8);
}

#[test]
fn newer_versions_refused_without_the_switch() {
    for (test, version, text) in [
        ("refuse080", (0, 8, 0), "0.8.0"),
        ("refuse100", (1, 0, 2), "1.0.2"),
    ] {
        let Some(stub) = Stub::new(test, version) else {
            return;
        };
        let err = CudssLibrary::load(&stub.options(false)).unwrap_err();
        assert!(
            matches!(err, CudssError::NewerVersionDisabled { .. }),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(message.contains(text), "{message}");
        assert!(message.contains("SIMDNLP_CUDSS_ALLOW_NEWER=1"), "{message}");
        assert!(
            message.contains(&stub.path.display().to_string()),
            "{message}"
        );
        // Only the version was asked: no handle, nothing to clean up.
        assert!(
            stub.calls().iter().all(|c| c.name == "cudssGetProperty"),
            "{:?}",
            stub.calls()
        );
        let library = stub.load(true);
        assert!(!library.family().enabled_by_default());
    }
    for (test, version) in [("refuse063", (0, 6, 3)), ("refuse200", (2, 0, 0))] {
        let Some(stub) = Stub::new(test, version) else {
            return;
        };
        let err = CudssLibrary::load(&stub.options(true)).unwrap_err();
        assert!(
            matches!(err, CudssError::UnsupportedVersion { .. }),
            "{err:?}"
        );
    }
    let Some(stub) = Stub::new("accept070", (0, 7, 0)) else {
        return;
    };
    assert_eq!(stub.load(false).family(), AbiFamily::V0_7);
}

#[test]
fn load_failure_names_every_candidate() {
    assert_eq!(
        LoadOptions::default().sonames,
        DEFAULT_SONAMES.map(String::from).to_vec()
    );
    assert_eq!(
        DEFAULT_SONAMES,
        ["libcudss.so.0", "libcudss.so.1", "libcudss.so"]
    );
    let options = LoadOptions {
        path: Some(PathBuf::from("/nonexistent/simdnlp/libcudss.so.0")),
        sonames: vec![
            "libcudss-simdnlp-absent.so.0".into(),
            "libcudss-simdnlp-absent.so".into(),
        ],
        allow_newer: false,
    };
    let err = CudssLibrary::load(&options).unwrap_err();
    let CudssError::Load { tried } = &err else {
        panic!("expected a load error, got {err:?}");
    };
    assert_eq!(tried.len(), 3);
    let message = err.to_string();
    for name in [
        "/nonexistent/simdnlp/libcudss.so.0",
        "libcudss-simdnlp-absent.so.0",
        "libcudss-simdnlp-absent.so",
        "LD_LIBRARY_PATH",
        "SIMDNLP_CUDSS_LIB",
        "libcublas.so.13",
    ] {
        assert!(message.contains(name), "`{name}` missing from: {message}");
    }
}

#[test]
fn a_library_without_cudss_symbols_is_a_typed_error() {
    let options = LoadOptions {
        path: Some(PathBuf::from("libm.so.6")),
        sonames: Vec::new(),
        allow_newer: false,
    };
    match CudssLibrary::load(&options) {
        Err(CudssError::MissingSymbol { symbol, .. }) => assert_eq!(symbol, "cudssGetProperty"),
        other => panic!("expected a missing symbol, got {other:?}"),
    }
}

#[test]
fn failing_calls_are_typed_errors_naming_the_call() {
    let Some(stub) = Stub::new("fail", (0, 7, 1)) else {
        return;
    };
    let library = stub.load(false);
    let new = || unsafe {
        // SAFETY: the stand-in never dereferences the stream.
        CudssSolver::new(library.clone(), stream(), CudssOptions::default())
    };

    stub.fail("cudssCreate", 2, 0);
    let err = new().unwrap_err();
    assert_eq!(
        err.to_string(),
        "cudssCreate failed with cuDSS status 2 (ALLOC_FAILED)"
    );
    stub.fail("cudssDataCreate", 4, 0);
    let err = new().unwrap_err();
    assert!(
        matches!(
            err,
            CudssError::Status {
                call: "cudssDataCreate",
                status: 4,
                name: "NOT_SUPPORTED"
            }
        ),
        "{err:?}"
    );
    assert_eq!(stub.live_objects(), 0, "partial creation cleaned up");
    // The multi-threaded mode: a refused threading layer is a typed error naming the file.
    stub.fail("cudssSetThreadingLayer", 3, 0);
    let threaded = CudssOptions {
        host_threads: 2,
        ..CudssOptions::default()
    };
    // SAFETY: the stand-in never dereferences the stream.
    let err = unsafe { CudssSolver::new(library.clone(), stream(), threaded) }.unwrap_err();
    let layer = stub.path.with_file_name("libcudss_mtlayer_gomp.so.0");
    assert!(
        matches!(&err, CudssError::ThreadingLayer { layer: l, .. } if l == &layer.display().to_string()),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("status 3 (INVALID_VALUE)"),
        "{err}"
    );
    assert!(err.to_string().contains("SIMDNLP_CUDSS_MTLAYER"), "{err}");
    assert_eq!(stub.live_objects(), 0, "partial creation cleaned up");

    let mut solver = new().unwrap();
    // SAFETY (this block): the stand-in never dereferences device pointers.
    unsafe {
        stub.fail("cudssExecute", 6, 0);
        let err = solver.analyze(pattern(3, 5)).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cudssExecute(ANALYSIS) failed with cuDSS status 6 (INTERNAL_ERROR)"
        );
        assert!(matches!(
            solver.factorize(VALUES),
            Err(CudssError::InvalidState(_))
        ));
        solver.analyze(pattern(3, 5)).unwrap();
        stub.fail("cudssExecute", 5, 0);
        let err = solver.factorize(VALUES).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cudssExecute(FACTORIZATION) failed with cuDSS status 5 (EXECUTION_FAILED)"
        );
        assert!(matches!(
            solver.solve_in_place(RHS),
            Err(CudssError::InvalidState(_))
        ));
        // A failed call leaves the next factorization a first one.
        stub.set_inertia(3, 0);
        assert_eq!(solver.factorize(VALUES).unwrap(), FactorStatus::Success);
        stub.fail("cudssDataGet", 1, 0);
        let err = solver.factorize(VALUES).unwrap_err();
        assert!(
            matches!(
                err,
                CudssError::Status {
                    call: "cudssDataGet(INFO)",
                    ..
                }
            ),
            "{err:?}"
        );
        stub.fail("cudssMatrixSetValues", 3, 0);
        assert_eq!(solver.factorize(VALUES).unwrap(), FactorStatus::Success);
        let err = solver.solve_in_place(RHS).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cudssMatrixSetValues(rhs) failed with cuDSS status 3 (INVALID_VALUE)"
        );
        solver.solve_in_place(RHS).unwrap();
        stub.fail("cudssExecute", 7, 0);
        let err = solver.solve_in_place(RHS).unwrap_err();
        assert!(
            matches!(
                err,
                CudssError::Status {
                    call: "cudssExecute(SOLVE)",
                    status: 7,
                    name: "UNKNOWN"
                }
            ),
            "0.7 has no status 7: {err:?}"
        );
    }
    let phases: Vec<String> = stub
        .calls()
        .iter()
        .filter(|c| c.name == "cudssExecute")
        .map(|c| c.get("phase").to_owned())
        .collect();
    // ANALYSIS (failed), ANALYSIS, FACTORIZATION (failed), FACTORIZATION, REFACTORIZATION,
    // REFACTORIZATION, SOLVE, SOLVE (failed).
    assert_eq!(phases, ["3", "3", "4", "4", "8", "8", "1008", "1008"]);
    drop(solver);
    assert_eq!(stub.live_objects(), 0);

    // The newer ABI names status 7.
    let Some(newer) = Stub::new("fail080", (0, 8, 0)) else {
        return;
    };
    let library = newer.load(true);
    newer.fail("cudssSetStream", 7, 0);
    // SAFETY: the stand-in never dereferences the stream.
    let err = unsafe { CudssSolver::new(library, stream(), CudssOptions::default()) };
    assert_eq!(
        err.unwrap_err().to_string(),
        "cudssSetStream failed with cuDSS status 7 (IR_FAILED)"
    );
    assert_eq!(newer.live_objects(), 0);
}

#[test]
fn cholesky_verdict_and_info_reset() {
    let options = CudssOptions {
        factorization: CudssFactorization::Cholesky,
        ..CudssOptions::default()
    };
    let Some((stub, _, mut solver)) = setup("cholesky", options) else {
        return;
    };
    // SAFETY (this block): the stand-in never dereferences device pointers.
    unsafe {
        solver.analyze(pattern(4, 7)).unwrap();
        assert_eq!(solver.factorize(VALUES).unwrap(), FactorStatus::Success);
        assert_eq!(solver.inertia(), inertia(4, 0, 0));
        stub.set_info(2);
        assert_eq!(
            solver.factorize(VALUES).unwrap(),
            FactorStatus::NotPositiveDefinite
        );
        assert_eq!(solver.inertia(), None);
        assert!(matches!(
            solver.solve_in_place(RHS),
            Err(CudssError::InvalidState(_))
        ));
        stub.set_info(0);
        assert_eq!(solver.factorize(VALUES).unwrap(), FactorStatus::Success);
        solver.solve_in_place(RHS).unwrap();
    }
    let calls = stub.calls();
    let csr = calls
        .iter()
        .find(|c| c.name == "cudssMatrixCreateCsr")
        .unwrap();
    assert_eq!(csr.get("mtype"), "3", "CUDSS_MTYPE_SPD");
    assert!(
        calls.iter().all(|c| c.name != "cudssConfigSet"),
        "default options set nothing"
    );
    let sequence: Vec<String> = calls
        .iter()
        .filter(|c| {
            matches!(
                c.name.as_str(),
                "cudssExecute" | "cudssDataGet" | "cudssDataSet"
            )
        })
        .map(|c| match c.name.as_str() {
            "cudssExecute" => format!("execute {}", c.get("phase")),
            other => format!("{other} {} {}", c.get("param"), c.get("value")),
        })
        .collect();
    // Cholesky never asks for the inertia; INFO is reset before every REFACTORIZATION.
    assert_eq!(
        sequence,
        [
            "execute 3",
            "execute 4",
            "cudssDataGet 0 0",
            "cudssDataSet 0 0",
            "execute 8",
            "cudssDataGet 0 2",
            "cudssDataSet 0 0",
            "execute 8",
            "cudssDataGet 0 0",
            "execute 1008",
        ]
    );
}

#[test]
fn ldlt_inertia_verdicts() {
    let Some((stub, _, mut solver)) = setup("ldlt", CudssOptions::default()) else {
        return;
    };
    // SAFETY (this block): the stand-in never dereferences device pointers.
    unsafe {
        solver.analyze(pattern(3, 6)).unwrap();
        stub.set_inertia(2, 1);
        assert_eq!(solver.factorize(VALUES).unwrap(), FactorStatus::Success);
        assert_eq!(solver.inertia(), inertia(2, 1, 0));
        stub.set_inertia(2, 0);
        assert_eq!(solver.factorize(VALUES).unwrap(), FactorStatus::Singular);
        assert_eq!(solver.inertia(), inertia(2, 0, 1));
        assert!(
            solver.solve_in_place(RHS).is_err(),
            "no solve after Singular"
        );
        stub.set_info(1);
        assert_eq!(solver.factorize(VALUES).unwrap(), FactorStatus::Singular);
        assert_eq!(solver.inertia(), None);
        stub.set_info(0);
        stub.set_inertia(3, 1);
        assert!(matches!(
            solver.factorize(VALUES),
            Err(CudssError::InvalidInertia {
                positive: 3,
                negative: 1,
                n: 3
            })
        ));
        stub.set_inertia(3, 0);
        assert_eq!(solver.factorize(VALUES).unwrap(), FactorStatus::Success);
        solver.solve_in_place(RHS).unwrap();
    }
    let gets: Vec<&str> = stub
        .calls()
        .iter()
        .filter(|c| c.name == "cudssDataGet")
        .map(|c| {
            if c.get("param") == "0" {
                "info"
            } else {
                "inertia"
            }
        })
        .collect();
    // INERTIA is read only when INFO == 0.
    assert_eq!(
        gets,
        [
            "info", "inertia", "info", "inertia", "info", "info", "inertia", "info", "inertia"
        ]
    );
}

#[test]
fn index_overflow_and_bad_arguments_are_caught_before_cudss() {
    let Some((stub, library, mut solver)) = setup("args", CudssOptions::default()) else {
        return;
    };
    let big = i32::MAX as usize + 1;
    // SAFETY (this block): the stand-in never dereferences device pointers, and these calls
    // are refused before any reaches it.
    unsafe {
        assert!(matches!(
            solver.factorize(VALUES),
            Err(CudssError::InvalidState(_))
        ));
        let err = solver.analyze(pattern(big, 10)).unwrap_err();
        assert!(
            matches!(
                err,
                CudssError::IndexOverflow {
                    what: "matrix dimension n",
                    value,
                    max: 2147483647
                } if value == big
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("2147483648"), "{err}");
        let err = solver.analyze(pattern(100_000, big)).unwrap_err();
        assert!(
            matches!(
                err,
                CudssError::IndexOverflow {
                    what: "number of stored entries nnz",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(matches!(
            solver.analyze(pattern(3, 7)),
            Err(CudssError::InvalidArgument {
                what: "DeviceCsc::nnz",
                ..
            })
        ));
        for (broken, what) in [
            (
                DeviceCsc {
                    col_ptr: 0,
                    ..pattern(3, 5)
                },
                "DeviceCsc::col_ptr",
            ),
            (
                DeviceCsc {
                    row_idx: 0,
                    ..pattern(3, 5)
                },
                "DeviceCsc::row_idx",
            ),
            (
                DeviceCsc {
                    values: 0,
                    ..pattern(3, 5)
                },
                "DeviceCsc::values",
            ),
        ] {
            match solver.analyze(broken) {
                Err(CudssError::InvalidArgument { what: got, .. }) => assert_eq!(got, what),
                other => panic!("expected InvalidArgument for {what}, got {other:?}"),
            }
        }
        let bad_option = CudssSolver::new(
            library.clone(),
            stream(),
            CudssOptions {
                pivot_epsilon: Some(f64::NAN),
                ..CudssOptions::default()
            },
        );
        assert!(matches!(
            bad_option,
            Err(CudssError::InvalidArgument {
                what: "CudssOptions::pivot_epsilon",
                ..
            })
        ));
        for not_a_permutation in [&[0, 0, 1][..], &[0, 3, 1]] {
            assert!(matches!(
                solver.set_user_permutation(Some(not_a_permutation)),
                Err(CudssError::InvalidArgument {
                    what: "CudssSolver::set_user_permutation",
                    ..
                })
            ));
        }
        solver.set_user_permutation(Some(&[1, 0])).unwrap();
        match solver.analyze(pattern(3, 5)) {
            Err(CudssError::InvalidArgument { what, detail }) => {
                assert_eq!(what, "CudssSolver::set_user_permutation");
                assert!(detail.contains("length 2 for a 3x3"), "{detail}");
            }
            other => panic!("expected InvalidArgument for the length, got {other:?}"),
        }
        solver.set_user_permutation(None).unwrap();
        solver.analyze(pattern(3, 5)).unwrap();
        assert!(matches!(
            solver.factorize(0),
            Err(CudssError::InvalidArgument { .. })
        ));
        stub.set_inertia(3, 0);
        solver.factorize(VALUES).unwrap();
        assert!(matches!(
            solver.solve_in_place(0),
            Err(CudssError::InvalidArgument { .. })
        ));
    }
    assert!(
        !stub
            .calls()
            .iter()
            .any(|c| c.name == "cudssMatrixCreateCsr" && c.get("nrows") != "3"),
        "no refused pattern reached cuDSS"
    );
}

#[test]
fn an_empty_matrix_makes_no_cudss_calls() {
    let Some((stub, _, mut solver)) = setup("empty", CudssOptions::default()) else {
        return;
    };
    let before = stub.calls().len();
    // SAFETY (this block): nothing is dereferenced for n = 0.
    unsafe {
        solver.analyze(pattern(0, 0)).unwrap();
        assert_eq!(solver.factorize(0).unwrap(), FactorStatus::Success);
        assert_eq!(solver.inertia(), inertia(0, 0, 0));
        solver.solve_in_place(0).unwrap();
    }
    assert_eq!(solver.pivot_count().unwrap(), 0);
    assert_eq!(stub.calls().len(), before);
}

#[test]
fn a_second_analysis_starts_over_on_new_data() {
    let Some((stub, _, mut solver)) = setup("reanalyze", CudssOptions::default()) else {
        return;
    };
    stub.set_inertia(3, 0);
    // SAFETY (this block): the stand-in never dereferences device pointers.
    unsafe {
        solver.analyze(pattern(3, 5)).unwrap();
        solver.factorize(VALUES).unwrap();
        stub.set_inertia(4, 0);
        solver.analyze(pattern(4, 6)).unwrap();
        assert!(
            solver.solve_in_place(RHS).is_err(),
            "a new analysis needs a factorization"
        );
        assert_eq!(solver.factorize(VALUES).unwrap(), FactorStatus::Success);
        assert_eq!(solver.n(), 4);
    }
    drop(solver);
    assert_eq!(stub.live_objects(), 0);
    let names: Vec<String> = stub
        .calls()
        .iter()
        .filter(|c| c.name != "cudssGetProperty" && c.name != "cudssDataGet")
        .map(|c| match c.name.as_str() {
            "cudssExecute" => format!("execute {}", c.get("phase")),
            other => other.to_owned(),
        })
        .collect();
    let tail: Vec<&str> = names.iter().skip(4).map(String::as_str).collect();
    assert_eq!(
        tail,
        [
            "cudssMatrixCreateCsr",
            "cudssMatrixCreateDn",
            "cudssMatrixCreateDn",
            "execute 3",
            "execute 4",
            "cudssMatrixDestroy",
            "cudssMatrixDestroy",
            "cudssMatrixDestroy",
            "cudssDataDestroy",
            "cudssDataCreate",
            "cudssMatrixCreateCsr",
            "cudssMatrixCreateDn",
            "cudssMatrixCreateDn",
            "execute 3",
            // A new pattern's first numeric factorization is FACTORIZATION again.
            "execute 4",
            "cudssMatrixDestroy",
            "cudssMatrixDestroy",
            "cudssMatrixDestroy",
            "cudssDataDestroy",
            "cudssConfigDestroy",
            "cudssDestroy",
        ]
    );
}

#[test]
fn two_solvers_share_one_library() {
    let Some(stub) = Stub::new("two", (0, 7, 1)) else {
        return;
    };
    let library = stub.load(false);
    let mut outer = solver(&library, CudssOptions::default());
    let mut inner = solver(&library, CudssOptions::default());
    stub.set_inertia(3, 0);
    // SAFETY (this block): the stand-in never dereferences device pointers.
    unsafe {
        outer.analyze(pattern(3, 5)).unwrap();
        inner.analyze(pattern(3, 4)).unwrap();
        outer.factorize(VALUES).unwrap();
        inner.factorize(VALUES_2).unwrap();
        drop(inner);
        outer.factorize(VALUES).unwrap();
        outer.solve_in_place(RHS).unwrap();
    }
    drop(outer);
    drop(library);
    assert_eq!(stub.live_objects(), 0);
    let handles: Vec<String> = stub
        .calls()
        .iter()
        .filter(|c| c.name == "cudssCreate")
        .map(|c| c.get("out").to_owned())
        .collect();
    assert_eq!(handles.len(), 2);
    assert_ne!(handles[0], handles[1]);
    let phases: Vec<(String, String)> = stub
        .calls()
        .iter()
        .filter(|c| c.name == "cudssExecute")
        .map(|c| (c.get("handle").to_owned(), c.get("phase").to_owned()))
        .collect();
    let (o, i) = (handles[0].clone(), handles[1].clone());
    assert_eq!(
        phases,
        [
            (o.clone(), "3".into()),
            (i.clone(), "3".into()),
            (o.clone(), "4".into()),
            (i, "4".into()),
            (o.clone(), "8".into()),
            (o, "1008".into()),
        ]
    );
}

/// The stand-in itself distinguishes the two arities, so an arity mistake in the crate could
/// not pass the sequence tests above: called with the other family's argument list, it
/// rejects the call.
#[test]
fn the_stand_in_rejects_the_other_arity() {
    type Csr13 = unsafe extern "C" fn(
        *mut *mut c_void,
        i64,
        i64,
        i64,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
    ) -> c_int;
    type Csr14 = unsafe extern "C" fn(
        *mut *mut c_void,
        i64,
        i64,
        i64,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        *mut c_void,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
        c_int,
    ) -> c_int;
    let (Some(old), Some(new)) = (
        Stub::new("arity071", (0, 7, 1)),
        Stub::new("arity080", (0, 8, 0)),
    ) else {
        return;
    };
    let p = 0x100 as *mut c_void;
    let mut matrix: *mut c_void = std::ptr::null_mut();
    // SAFETY: both stand-ins define cudssMatrixCreateCsr with 14 `int`-class parameters after
    // the pointers; a 13-argument call leaves the 14th unread in 0.7 mode and, in 0.8 mode,
    // is rejected by the value checks on the first 13 (the 14th is never trusted).
    unsafe {
        let csr14: libloading::Symbol<Csr14> = old.control.get(b"cudssMatrixCreateCsr\0").unwrap();
        assert_eq!(
            csr14(&mut matrix, 3, 3, 5, p, p, p, p, 10, 10, 1, 1, 2, 0),
            3
        );
        let csr13: libloading::Symbol<Csr13> = old.control.get(b"cudssMatrixCreateCsr\0").unwrap();
        assert_eq!(csr13(&mut matrix, 3, 3, 5, p, p, p, p, 10, 1, 1, 2, 0), 0);

        let csr13: libloading::Symbol<Csr13> = new.control.get(b"cudssMatrixCreateCsr\0").unwrap();
        assert_eq!(csr13(&mut matrix, 3, 3, 5, p, p, p, p, 10, 1, 1, 2, 0), 3);
        let csr14: libloading::Symbol<Csr14> = new.control.get(b"cudssMatrixCreateCsr\0").unwrap();
        assert_eq!(
            csr14(&mut matrix, 3, 3, 5, p, p, p, p, 10, 10, 1, 1, 2, 0),
            0
        );
    }
}

/// Loading by soname through `LD_LIBRARY_PATH` and from the environment variables runs in a
/// child process (the loader reads `LD_LIBRARY_PATH` at start-up, and the environment is
/// process-wide): the parent builds the stand-in and re-runs this test with the variables set.
#[test]
fn sonames_and_environment_variables_in_a_child_process() {
    const CHILD: &str = "SIMDNLP_CUDSS_STUB_CHILD";
    if std::env::var_os(CHILD).is_some() {
        // Child: SIMDNLP_CUDSS_LIB names a missing file, so the soname search finds the
        // stand-in in LD_LIBRARY_PATH; SIMDNLP_CUDSS_ALLOW_NEWER=1 accepts its 0.8.0.
        let options = LoadOptions::from_env();
        assert_eq!(
            options.path,
            Some(PathBuf::from("/nonexistent/simdnlp/libcudss.so.0"))
        );
        assert!(options.allow_newer);
        let library = CudssLibrary::load_from_env().unwrap();
        assert_eq!(library.name(), "libcudss.so.0");
        assert_eq!(library.family(), AbiFamily::V0_8);
        return;
    }
    let Some(built) = stub_binary() else {
        return;
    };
    let mut search_path = std::ffi::OsString::from(built.parent().unwrap());
    if let Some(existing) = std::env::var_os("LD_LIBRARY_PATH") {
        search_path.push(":");
        search_path.push(existing);
    }
    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "sonames_and_environment_variables_in_a_child_process",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .env("LD_LIBRARY_PATH", search_path)
        .env("SIMDNLP_CUDSS_LIB", "/nonexistent/simdnlp/libcudss.so.0")
        .env("SIMDNLP_CUDSS_ALLOW_NEWER", "1")
        .env("SIMDNLP_CUDSS_STUB_VERSION", "0.8.0")
        .status()
        .unwrap();
    assert!(status.success(), "child run failed");
}
