//! PGLIB-OPF data layer: MATPOWER parsing ([`matpower`]), the per-unit network of the AC
//! polar model ([`data`]), locating the case directory and reading the published
//! objectives of `BASELINE.md`.

pub mod data;
pub mod matpower;
pub mod model;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use data::{Arc, Branch, Bus, Generator, OpfData};
pub use matpower::{MatpowerCase, MatpowerError, read_case};

/// Environment variable that overrides the PGLIB-OPF case directory.
pub const PGLIB_DIR_ENV: &str = "SIMDNLP_PGLIB_DIR";

/// Prefix of every PGLIB-OPF case name.
pub const PGLIB_PREFIX: &str = "pglib_opf_";

/// The PGLIB-OPF case directory: `$SIMDNLP_PGLIB_DIR` if set, else the first existing of
/// `<workspace>/../shared/data/pglib-opf`, `<workspace>/shared/data/pglib-opf`,
/// `<workspace>/data/pglib-opf` (the workspace root being this crate's parent directory).
pub fn default_pglib_dir() -> Result<PathBuf, MatpowerError> {
    if let Some(dir) = std::env::var_os(PGLIB_DIR_ENV) {
        let dir = PathBuf::from(dir);
        return if dir.is_dir() {
            Ok(dir)
        } else {
            Err(MatpowerError::NotFound(format!(
                "{PGLIB_DIR_ENV}={} is not a directory",
                dir.display()
            )))
        };
    }
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.parent().unwrap_or(manifest);
    let candidates = [
        root.join("../shared/data/pglib-opf"),
        root.join("shared/data/pglib-opf"),
        root.join("data/pglib-opf"),
    ];
    candidates
        .iter()
        .find(|p| p.is_dir())
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .ok_or_else(|| {
            MatpowerError::NotFound(format!(
                "PGLIB-OPF case directory not found (tried {}); set {PGLIB_DIR_ENV}",
                candidates
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })
}

/// Short case name: the file stem without the `pglib_opf_` prefix (`case5_pjm`).
pub fn short_name(name: &str) -> &str {
    let stem = name.strip_suffix(".m").unwrap_or(name);
    stem.strip_prefix(PGLIB_PREFIX).unwrap_or(stem)
}

/// Path of a case given as a file path (anything containing `/` or ending in `.m` that
/// exists) or a name (`case5_pjm`, `pglib_opf_case5_pjm`) looked up in `dir`.
pub fn case_path(dir: &Path, name: &str) -> Result<PathBuf, MatpowerError> {
    let as_path = Path::new(name);
    if (name.contains('/') || name.ends_with(".m")) && as_path.is_file() {
        return Ok(as_path.to_path_buf());
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
        if p.extension().and_then(|s| s.to_str()) == Some("m")
            && let Some(stem) = p.file_stem().and_then(|s| s.to_str())
        {
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
    fn baseline_parses_and_has_case5() {
        let dir = default_pglib_dir().unwrap();
        let b = read_baseline(&dir.join("BASELINE.md")).unwrap();
        let e = &b["pglib_opf_case5_pjm"];
        assert_eq!((e.nodes, e.edges, e.ac), (5, 6, Some(1.7552e4)));
        assert_eq!(b["pglib_opf_case118_ieee"].ac, Some(9.7214e4));
        assert_eq!(b["pglib_opf_case5_pjm__sad"].ac, Some(2.6109e4));
        // every case file of the directory has a baseline entry
        for (name, _) in list_cases(&dir).unwrap() {
            assert!(
                b.contains_key(&format!("{PGLIB_PREFIX}{name}")),
                "{name} missing"
            );
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
        let dir = default_pglib_dir().unwrap();
        let a = case_path(&dir, "case5_pjm").unwrap();
        let b = case_path(&dir, "pglib_opf_case5_pjm").unwrap();
        assert_eq!(a, b);
        assert_eq!(case_path(Path::new("."), a.to_str().unwrap()).unwrap(), a);
        assert!(matches!(
            case_path(&dir, "case0_none"),
            Err(MatpowerError::NotFound(_))
        ));
    }

    fn dims(name: &str) -> (usize, usize) {
        let dir = default_pglib_dir().unwrap();
        let d = OpfData::read(case_path(&dir, name).unwrap()).unwrap();
        (d.nvar(), d.ncon())
    }

    #[test]
    fn case_dimensions() {
        assert_eq!(dims("case5_pjm"), (44, 53));
        assert_eq!(dims("case118_ieee"), (1088, 1539));
    }

    #[test]
    fn every_case_parses() {
        let dir = default_pglib_dir().unwrap();
        let cases = list_cases(&dir).unwrap();
        assert!(cases.len() >= 59, "found only {} cases", cases.len());
        for (name, path) in cases {
            let c = read_case(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!c.bus.is_empty() && !c.branch.is_empty(), "{name}");
            // and passes every input check of the per-unit conversion
            OpfData::from_case(&c).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}
