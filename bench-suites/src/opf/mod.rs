//! PGLIB-OPF data layer: MATPOWER parsing ([`matpower`]), the per-unit network of the AC
//! polar model ([`data`]), locating the case directory and reading the published
//! objectives of `BASELINE.md`.

pub mod data;
pub mod matpower;
pub mod model;
mod register;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use data::{Arc, Branch, Bus, Generator, OpfData};
pub use matpower::{MatpowerCase, MatpowerError, read_case};
pub use register::{opf_nominal_class, register, register_handcoded, register_modeling};

/// Environment variable naming a directory of PGLIB-OPF cases searched before the bundled
/// ones (what `--pglib-dir` does on the harness's command line).
pub const PGLIB_DIR_ENV: &str = "SIMDNLP_PGLIB_DIR";

/// Prefix of every PGLIB-OPF case name.
pub const PGLIB_PREFIX: &str = "pglib_opf_";

/// The cases shipped in the repository (`bench-suites/data/pglib-opf`, with PGLIB's
/// license and the matching `BASELINE.md` rows): the ones the tests, the examples and
/// `--suite opf --size small` use. The rest of the library lives outside the repository.
pub const BUNDLED_CASES: [&str; 5] = [
    "case3_lmbd",
    "case5_pjm",
    "case14_ieee",
    "case89_pegase",
    "case118_ieee",
];

/// Directory of this package as seen by the running process. `cargo run` and `cargo test`
/// set `CARGO_MANIFEST_DIR` at run time, which follows a checkout that was copied or moved
/// after the build (CI tests a copy against the same target directory); the path compiled
/// in is the fallback (an installed binary).
fn package_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        let dir = PathBuf::from(dir);
        // the running package is this one or the workspace's root package
        for cand in [dir.clone(), dir.join("bench-suites")] {
            if cand.join("data/pglib-opf").is_dir() {
                return cand;
            }
        }
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory of the bundled cases ([`BUNDLED_CASES`]): `bench-suites/data/pglib-opf`.
pub fn bundled_pglib_dir() -> PathBuf {
    package_dir().join("data/pglib-opf")
}

/// `<workspace>/../shared/data/pglib-opf`: where a development checkout finds the complete
/// library (it is not part of the repository).
fn shared_pglib_dir() -> PathBuf {
    let pkg = package_dir();
    let root = pkg.parent().unwrap_or(&pkg);
    root.join("../shared/data/pglib-opf")
}

/// Where PGLIB-OPF cases are looked up: an ordered list of directories, the first that
/// holds a case wins (the files are the same PGLIB release everywhere).
///
/// [`PglibDirs::locate`] builds the default list: the directory given on the command line
/// (`--pglib-dir`) or by `$SIMDNLP_PGLIB_DIR`, then the bundled cases
/// ([`bundled_pglib_dir`]), then `../shared/data/pglib-opf` beside the checkout when it
/// exists. `BASELINE.md` is read from every directory that has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PglibDirs {
    dirs: Vec<PathBuf>,
}

impl PglibDirs {
    /// The default search list (see the type's docs). `explicit` (`--pglib-dir`) takes the
    /// place of `$SIMDNLP_PGLIB_DIR`. Error: the explicit or environment directory does
    /// not exist.
    pub fn locate(explicit: Option<PathBuf>) -> Result<Self, MatpowerError> {
        let mut dirs = Vec::new();
        let (given, from) = match explicit {
            Some(d) => (Some(d), "--pglib-dir"),
            None => (
                std::env::var_os(PGLIB_DIR_ENV).map(PathBuf::from),
                PGLIB_DIR_ENV,
            ),
        };
        if let Some(dir) = given {
            if !dir.is_dir() {
                return Err(MatpowerError::NotFound(format!(
                    "{from} {} is not a directory",
                    dir.display()
                )));
            }
            dirs.push(dir);
        }
        dirs.extend(
            [bundled_pglib_dir(), shared_pglib_dir()]
                .into_iter()
                .filter(|d| d.is_dir()),
        );
        Ok(Self::new(dirs))
    }

    /// An explicit search list (duplicates, by canonical path, are dropped).
    pub fn new(dirs: impl IntoIterator<Item = PathBuf>) -> Self {
        let mut out: Vec<PathBuf> = Vec::new();
        for d in dirs {
            let d = d.canonicalize().unwrap_or(d);
            if !out.contains(&d) {
                out.push(d);
            }
        }
        PglibDirs { dirs: out }
    }

    /// The directories, in search order.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// Path of a case given as a file path (see [`case_path`]) or a name looked up in
    /// each directory in turn. The error lists the directories searched.
    pub fn case_path(&self, name: &str) -> Result<PathBuf, MatpowerError> {
        if let Some(file) = existing_file(name) {
            return Ok(file);
        }
        if name.contains('/') || name.contains(std::path::MAIN_SEPARATOR) {
            return Err(MatpowerError::NotFound(format!("no case file {name}")));
        }
        for dir in &self.dirs {
            let p = dir.join(format!("{PGLIB_PREFIX}{}.m", short_name(name)));
            if p.is_file() {
                return Ok(p);
            }
        }
        Err(MatpowerError::NotFound(format!(
            "no PGLIB-OPF case {name:?} in {}; the repository ships {}: point --pglib-dir or \
             {PGLIB_DIR_ENV} at a complete copy of PGLIB-OPF for the others",
            self.describe(),
            BUNDLED_CASES.join(", ")
        )))
    }

    /// Every case of every directory as (short name, path), the first directory's file for
    /// a name found twice, ordered like [`list_cases`].
    pub fn list_cases(&self) -> Result<Vec<(String, PathBuf)>, MatpowerError> {
        let mut out: Vec<(String, PathBuf)> = Vec::new();
        for dir in &self.dirs {
            for (name, path) in list_cases(dir)? {
                if !out.iter().any(|(n, _)| *n == name) {
                    out.push((name, path));
                }
            }
        }
        out.sort_by_key(|(n, _)| (bus_count_hint(n), n.clone()));
        Ok(out)
    }

    /// The `BASELINE.md` rows of every directory that has one (the first directory's row
    /// for a case listed twice). Errors: a `BASELINE.md` that cannot be read or parsed.
    pub fn baseline(&self) -> Result<HashMap<String, BaselineEntry>, MatpowerError> {
        let mut out = HashMap::new();
        for dir in &self.dirs {
            let file = dir.join("BASELINE.md");
            if file.is_file() {
                for (k, v) in read_baseline(&file)? {
                    out.entry(k).or_insert(v);
                }
            }
        }
        Ok(out)
    }

    /// The directories as one line for messages (`a, b` or `no directory`).
    pub fn describe(&self) -> String {
        if self.dirs.is_empty() {
            return "no directory".to_string();
        }
        self.dirs
            .iter()
            .map(|d| d.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Path of a case (a file path, or a name in the default [`PglibDirs`]).
/// A file given by path is used as is, whatever the directories.
pub fn find_case(name: &str) -> Result<PathBuf, MatpowerError> {
    match existing_file(name) {
        Some(file) => Ok(file),
        None => PglibDirs::locate(None)?.case_path(name),
    }
}

/// `name` as a path when it looks like one (contains `/` or ends in `.m`) and is a file.
fn existing_file(name: &str) -> Option<PathBuf> {
    let p = Path::new(name);
    ((name.contains('/') || name.ends_with(".m")) && p.is_file()).then(|| p.to_path_buf())
}

/// Short case name: the file stem without the `pglib_opf_` prefix (`case5_pjm`).
pub fn short_name(name: &str) -> &str {
    let stem = name.strip_suffix(".m").unwrap_or(name);
    stem.strip_prefix(PGLIB_PREFIX).unwrap_or(stem)
}

/// Path of a case given as a file path (anything containing `/` or ending in `.m` that
/// exists) or a name (`case5_pjm`, `pglib_opf_case5_pjm`) looked up in `dir`.
pub fn case_path(dir: &Path, name: &str) -> Result<PathBuf, MatpowerError> {
    if let Some(file) = existing_file(name) {
        return Ok(file);
    }
    let p = dir.join(format!("{PGLIB_PREFIX}{}.m", short_name(name)));
    if p.is_file() {
        Ok(p)
    } else {
        Err(MatpowerError::NotFound(format!(
            "no case {name:?} ({} does not exist)",
            p.display()
        )))
    }
}

/// Every `*.m` case of `dir` as (short name, path), ordered by the bus count in the name
/// (`case5_…` before `case14_…`), then by name.
pub fn list_cases(dir: &Path) -> Result<Vec<(String, PathBuf)>, MatpowerError> {
    let rd = std::fs::read_dir(dir).map_err(|source| MatpowerError::Io {
        file: dir.to_path_buf(),
        source,
    })?;
    let mut out = Vec::new();
    for e in rd {
        let e = e.map_err(|source| MatpowerError::Io {
            file: dir.to_path_buf(),
            source,
        })?;
        let p = e.path();
        let is_m = p.extension().and_then(|s| s.to_str()) == Some("m");
        if let Some(stem) = p.file_stem().and_then(|s| s.to_str()).filter(|_| is_m) {
            out.push((short_name(stem).to_string(), p.clone()));
        }
    }
    out.sort_by_key(|(n, _)| (bus_count_hint(n), n.clone()));
    Ok(out)
}

/// The number after `case` in a case name (`case118_ieee` → 118), or `usize::MAX`.
pub fn bus_count_hint(name: &str) -> usize {
    let s = short_name(name);
    let digits: String = s
        .strip_prefix("case")
        .unwrap_or("")
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    digits.parse().unwrap_or(usize::MAX)
}

/// One row of `BASELINE.md`.
#[derive(Clone, Debug, PartialEq)]
pub struct BaselineEntry {
    /// Number of buses ("Nodes").
    pub nodes: usize,
    /// Number of branches ("Edges").
    pub edges: usize,
    /// Locally optimal AC objective ($/h), `None` where the table has no number.
    pub ac: Option<f64>,
}

/// Reads `BASELINE.md`: case name (as in the table, e.g. `pglib_opf_case5_pjm`,
/// `pglib_opf_case5_pjm__api`) → nodes, edges and the "AC ($/h)" column.
pub fn read_baseline(path: &Path) -> Result<HashMap<String, BaselineEntry>, MatpowerError> {
    let text = std::fs::read_to_string(path).map_err(|source| MatpowerError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    parse_baseline(&text, path)
}

/// Parses the text of `BASELINE.md` (see [`read_baseline`]); column positions come from
/// each table's header row.
pub fn parse_baseline(
    text: &str,
    file: &Path,
) -> Result<HashMap<String, BaselineEntry>, MatpowerError> {
    let mut out = HashMap::new();
    let mut cols: Option<(usize, usize, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if !t.starts_with('|') {
            cols = if t.is_empty() { cols } else { None };
            continue;
        }
        let cells: Vec<String> = t
            .trim_matches('|')
            .split('|')
            .map(|c| c.replace(['*', '\\'], "").trim().to_string())
            .collect();
        if cells.iter().any(|c| c == "AC ($/h)") {
            let find = |name: &str| cells.iter().position(|c| c == name);
            match (find("Nodes"), find("Edges"), find("AC ($/h)")) {
                (Some(n), Some(e), Some(a)) => cols = Some((n, e, a)),
                _ => {
                    return Err(MatpowerError::InvalidValue {
                        file: file.to_path_buf(),
                        line: i + 1,
                        field: "baseline",
                        what: "header lacks Nodes/Edges/AC ($/h)".to_string(),
                    });
                }
            }
            continue;
        }
        let Some((cn, ce, ca)) = cols else { continue };
        if cells[0].starts_with('-') {
            continue;
        }
        let get = |k: usize| cells.get(k).map(String::as_str).unwrap_or("");
        let bad = |what: &str| MatpowerError::InvalidValue {
            file: file.to_path_buf(),
            line: i + 1,
            field: "baseline",
            what: what.to_string(),
        };
        let nodes = get(cn)
            .parse()
            .map_err(|_| bad("Nodes is not an integer"))?;
        let edges = get(ce)
            .parse()
            .map_err(|_| bad("Edges is not an integer"))?;
        let ac = get(ca).parse::<f64>().ok().filter(|v| v.is_finite());
        out.insert(cells[0].clone(), BaselineEntry { nodes, edges, ac });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_baseline_covers_the_bundled_cases() {
        let dir = bundled_pglib_dir();
        let b = read_baseline(&dir.join("BASELINE.md")).unwrap();
        let e = &b["pglib_opf_case5_pjm"];
        assert_eq!((e.nodes, e.edges, e.ac), (5, 6, Some(1.7552e4)));
        assert_eq!(b["pglib_opf_case118_ieee"].ac, Some(9.7214e4));
        assert_eq!(b["pglib_opf_case5_pjm__sad"].ac, Some(2.6109e4));
        // the bundled files are exactly BUNDLED_CASES, each with its baseline row
        let names: Vec<String> = list_cases(&dir).unwrap().into_iter().map(|c| c.0).collect();
        assert_eq!(names, BUNDLED_CASES);
        for name in names {
            assert!(b.contains_key(&format!("{PGLIB_PREFIX}{name}")), "{name}");
        }
        assert!(dir.join("LICENSE").is_file());
    }

    /// The complete library when this machine has one: `$SIMDNLP_PGLIB_DIR`, else
    /// `../shared/data/pglib-opf` beside the checkout.
    fn library_dir() -> Option<PathBuf> {
        std::env::var_os(PGLIB_DIR_ENV)
            .map(PathBuf::from)
            .into_iter()
            .chain([shared_pglib_dir()])
            .find(|d| d.is_dir())
    }

    #[test]
    fn bundled_cases_are_copies_of_the_library() {
        let Some(library) = library_dir() else {
            crate::testing::say_skipped(
                "bundled_cases_are_copies_of_the_library: skipped, no PGLIB-OPF library found",
            );
            return;
        };
        let bundled = bundled_pglib_dir();
        for name in BUNDLED_CASES {
            let file = format!("{PGLIB_PREFIX}{name}.m");
            let a = std::fs::read(bundled.join(&file)).unwrap();
            let b = std::fs::read(library.join(&file)).unwrap();
            assert!(a == b, "{file} differs from the library's");
        }
        let ours = read_baseline(&bundled.join("BASELINE.md")).unwrap();
        let theirs = read_baseline(&library.join("BASELINE.md")).unwrap();
        for (k, v) in &ours {
            assert_eq!(Some(v), theirs.get(k), "{k}");
        }
    }

    #[test]
    fn baseline_bad_header() {
        let s = "| Case | AC ($/h) |\n|---|---|\n";
        assert!(matches!(
            parse_baseline(s, Path::new("B.md")).unwrap_err(),
            MatpowerError::InvalidValue { line: 1, .. }
        ));
    }

    #[test]
    fn names_and_paths() {
        assert_eq!(short_name("pglib_opf_case5_pjm.m"), "case5_pjm");
        assert_eq!(bus_count_hint("case118_ieee"), 118);
        let dirs = PglibDirs::locate(None).unwrap();
        let a = dirs.case_path("case5_pjm").unwrap();
        let b = dirs.case_path("pglib_opf_case5_pjm").unwrap();
        assert_eq!(a, b);
        // a file path is taken as is, with or without directories
        let file = a.to_str().unwrap();
        assert_eq!(PglibDirs::new([]).case_path(file).unwrap(), a);
        assert_eq!(find_case(file).unwrap(), a);
        assert_eq!(case_path(Path::new("."), file).unwrap(), a);
        let missing = dirs.case_path("case0_none").unwrap_err().to_string();
        assert!(
            missing.contains("case0_none") && missing.contains("case5_pjm"),
            "{missing}"
        );
        let missing = dirs.case_path("no/such/case.m").unwrap_err().to_string();
        assert!(missing.contains("no/such/case.m"), "{missing}");
        assert!(matches!(
            PglibDirs::locate(Some("no/such/dir".into())),
            Err(MatpowerError::NotFound(m)) if m.contains("--pglib-dir")
        ));
        // the bundled directory is always searched, and a directory is listed once
        assert!(
            dirs.dirs()
                .contains(&bundled_pglib_dir().canonicalize().unwrap())
        );
        let twice = PglibDirs::new([bundled_pglib_dir(), bundled_pglib_dir()]);
        assert_eq!(twice.dirs().len(), 1);
        assert_eq!(twice.list_cases().unwrap().len(), BUNDLED_CASES.len());
    }

    fn dims(name: &str) -> (usize, usize) {
        let d = OpfData::read(find_case(name).unwrap()).unwrap();
        (d.nvar(), d.ncon())
    }

    #[test]
    fn case_dimensions() {
        assert_eq!(dims("case5_pjm"), (44, 53));
        assert_eq!(dims("case118_ieee"), (1088, 1539));
    }

    #[test]
    fn every_case_parses() {
        let dirs = PglibDirs::locate(None).unwrap();
        let cases = dirs.list_cases().unwrap();
        let baseline = dirs.baseline().unwrap();
        if library_dir().is_some() {
            // the 59 cases of PGLIB-OPF v23.07 in the library this project uses
            assert!(cases.len() >= 59, "found only {} cases", cases.len());
        } else {
            crate::testing::say_skipped(&format!(
                "every_case_parses: only the {} bundled cases (no PGLIB-OPF library found)",
                cases.len()
            ));
        }
        for (name, path) in cases {
            assert!(
                baseline.contains_key(&format!("{PGLIB_PREFIX}{name}")),
                "{name}"
            );
            let c = read_case(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!c.bus.is_empty() && !c.branch.is_empty(), "{name}");
            // and passes every input check of the per-unit conversion
            OpfData::from_case(&c).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
