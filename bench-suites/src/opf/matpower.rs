//! A parser for MATPOWER case files (`.m`), the format of the PGLIB-OPF library.
//!
//! Reads `mpc.baseMVA` and the matrices `mpc.bus`, `mpc.gen`, `mpc.branch` and
//! `mpc.gencost`. Accepts `%` comments (whole-line or trailing), tabs and spaces or commas
//! between entries, rows ending in `;` (several rows per line or one row over several
//! lines), optional trailing columns (MATPOWER's extended generator columns, solution
//! columns), and ignores every other `mpc.*` field (matrices and cell arrays alike).
//! Malformed input gives a [`MatpowerError`] naming the file, the line and the field.
//!
//! Like MATPOWER (which reads `.m` files as MATLAB/Octave code), a file need not be UTF-8:
//! a UTF-8 byte-order mark is skipped, and a file that is not valid UTF-8 (a Latin-1 byte
//! in a comment) is read as Latin-1.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// Minimum number of columns MATPOWER requires in `mpc.bus`.
pub const BUS_COLS: usize = 13;
/// Minimum number of columns MATPOWER requires in `mpc.gen`.
pub const GEN_COLS: usize = 10;
/// Minimum number of columns MATPOWER requires in `mpc.branch` (up to ANGMAX).
pub const BRANCH_COLS: usize = 13;
/// Minimum number of columns of an `mpc.gencost` row (MODEL STARTUP SHUTDOWN NCOST).
pub const GENCOST_MIN_COLS: usize = 4;

/// Errors from reading a MATPOWER case file. Every variant names the file; those that
/// concern one entry also name the 1-based line and the `mpc` field.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MatpowerError {
    /// The file could not be read.
    #[error("{file}: cannot read: {source}")]
    Io {
        /// The file.
        file: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A required field (`baseMVA`, `bus`, `gen`, `branch`, `gencost`) is absent.
    #[error("{file}: missing field mpc.{field}")]
    MissingField {
        /// The file.
        file: PathBuf,
        /// The field name without `mpc.`.
        field: &'static str,
    },
    /// A required field appears twice.
    #[error("{file}:{line}: field mpc.{field} defined twice")]
    DuplicateField {
        /// The file.
        file: PathBuf,
        /// Line of the second definition.
        line: usize,
        /// The field name.
        field: &'static str,
    },
    /// An entry is not a number.
    #[error("{file}:{line}: mpc.{field}: cannot parse {token:?} as a number")]
    BadNumber {
        /// The file.
        file: PathBuf,
        /// Line of the entry.
        line: usize,
        /// The field name.
        field: &'static str,
        /// The offending text.
        token: String,
    },
    /// A matrix row has fewer columns than the format requires.
    #[error("{file}:{line}: mpc.{field}: row has {found} columns, at least {needed} needed")]
    TooFewColumns {
        /// The file.
        file: PathBuf,
        /// Line where the row ends.
        line: usize,
        /// The field name.
        field: &'static str,
        /// Columns found.
        found: usize,
        /// Columns required.
        needed: usize,
    },
    /// A matrix opened with `[` is never closed with `]`.
    #[error("{file}:{line}: mpc.{field}: matrix opened here is never closed with ']'")]
    Unterminated {
        /// The file.
        file: PathBuf,
        /// Line where the matrix starts.
        line: usize,
        /// The field name.
        field: &'static str,
    },
    /// A value is outside its domain (non-positive baseMVA, bus id not a positive
    /// integer, zero branch impedance, unknown bus type, ...).
    #[error("{file}:{line}: mpc.{field}: invalid value: {what}")]
    InvalidValue {
        /// The file.
        file: PathBuf,
        /// Line of the entry.
        line: usize,
        /// The field name.
        field: &'static str,
        /// What is wrong.
        what: String,
    },
    /// A generator or branch refers to a bus id not present in `mpc.bus`.
    #[error("{file}:{line}: mpc.{field}: unknown bus id {bus}")]
    UnknownBus {
        /// The file.
        file: PathBuf,
        /// Line of the referring row.
        line: usize,
        /// The field name.
        field: &'static str,
        /// The bus id as written in the file.
        bus: i64,
    },
    /// Two rows of `mpc.bus` share an id.
    #[error("{file}:{line}: mpc.bus: duplicate bus id {bus}")]
    DuplicateBus {
        /// The file.
        file: PathBuf,
        /// Line of the second row.
        line: usize,
        /// The bus id.
        bus: i64,
    },
    /// `mpc.gencost` has fewer rows than `mpc.gen`.
    #[error("{file}: mpc.gencost has {ngencost} rows but mpc.gen has {ngen}")]
    GencostCount {
        /// The file.
        file: PathBuf,
        /// Rows of `mpc.gen`.
        ngen: usize,
        /// Rows of `mpc.gencost`.
        ngencost: usize,
    },
    /// A cost row uses a model other than polynomial (2) with at most 3 coefficients.
    #[error(
        "{file}:{line}: mpc.gencost: unsupported cost (MODEL {model}, NCOST {ncost}); only MODEL 2 with NCOST <= 3"
    )]
    UnsupportedCost {
        /// The file.
        file: PathBuf,
        /// Line of the row.
        line: usize,
        /// The MODEL column.
        model: f64,
        /// The NCOST column.
        ncost: f64,
    },
    /// `mpc.bus` has no reference bus (type 3): the voltage angles have no reference.
    #[error("{file}: mpc.bus has no reference bus (type 3)")]
    NoReferenceBus {
        /// The file.
        file: PathBuf,
    },
    /// The file names no case (no `.m` stem) or the case directory cannot be found.
    #[error("{0}")]
    NotFound(String),
}

/// One numeric matrix row with the line it ends on (1-based).
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The entries, in file order (length at least the format's minimum).
    pub vals: Vec<f64>,
    /// The 1-based line where the row's `;` (or the closing `]`) is.
    pub line: usize,
}

/// The raw content of a MATPOWER case, in MATPOWER's units (MW, MVAr, degrees), before
/// any filtering or per-unit conversion.
#[derive(Clone, Debug, PartialEq)]
pub struct MatpowerCase {
    /// The file the case was read from.
    pub file: PathBuf,
    /// Case name: the file stem (e.g. `pglib_opf_case5_pjm`).
    pub name: String,
    /// System base power in MVA (> 0).
    pub base_mva: f64,
    /// `mpc.bus` rows (≥ [`BUS_COLS`] columns).
    pub bus: Vec<Row>,
    /// `mpc.gen` rows (≥ [`GEN_COLS`] columns).
    pub gen_rows: Vec<Row>,
    /// `mpc.branch` rows (≥ [`BRANCH_COLS`] columns).
    pub branch: Vec<Row>,
    /// `mpc.gencost` rows (≥ [`GENCOST_MIN_COLS`] + NCOST columns).
    pub gencost: Vec<Row>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Field {
    Bus,
    Gen,
    Branch,
    Gencost,
}

impl Field {
    fn name(self) -> &'static str {
        match self {
            Field::Bus => "bus",
            Field::Gen => "gen",
            Field::Branch => "branch",
            Field::Gencost => "gencost",
        }
    }
    fn min_cols(self) -> usize {
        match self {
            Field::Bus => BUS_COLS,
            Field::Gen => GEN_COLS,
            Field::Branch => BRANCH_COLS,
            Field::Gencost => GENCOST_MIN_COLS,
        }
    }
}

enum State {
    Outside,
    /// Inside a known matrix: field, start line, row being accumulated.
    Matrix(Field, usize, Vec<f64>),
    /// Inside an ignored matrix or cell array, waiting for this closing character.
    Skip(char),
}

/// Reads and parses a MATPOWER case file (any encoding [`decode`] accepts).
pub fn read_case(path: impl AsRef<Path>) -> Result<MatpowerCase, MatpowerError> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|source| MatpowerError::Io {
        file: path.to_path_buf(),
        source,
    })?;
    parse_case(&decode(&bytes), path)
}

/// The text of a case file's bytes: without a leading UTF-8 byte-order mark, as UTF-8 when
/// the bytes are valid UTF-8, else as Latin-1 (every byte one character, so a stray
/// accented letter in a comment never makes a file unreadable).
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect()),
    }
}

/// Parses the text of a MATPOWER case; `file` is used for the name and error messages. A
/// leading byte-order mark is skipped.
pub fn parse_case(text: &str, file: &Path) -> Result<MatpowerCase, MatpowerError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let f = || file.to_path_buf();
    let name = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("case")
        .to_string();
    let mut base_mva: Option<f64> = None;
    let mut mats: [Option<Vec<Row>>; 4] = [None, None, None, None];
    let mut state = State::Outside;

    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = match raw.find('%') {
            Some(p) => &raw[..p],
            None => raw,
        };
        let mut rest: &str = line;
        loop {
            match &mut state {
                State::Outside => {
                    let t = rest.trim();
                    let Some(after) = t.strip_prefix("mpc.") else {
                        break;
                    };
                    let Some(eq) = after.find('=') else {
                        break;
                    };
                    let key = after[..eq].trim();
                    let value = after[eq + 1..].trim_start();
                    let field = match key {
                        "bus" => Some(Field::Bus),
                        "gen" => Some(Field::Gen),
                        "branch" => Some(Field::Branch),
                        "gencost" => Some(Field::Gencost),
                        _ => None,
                    };
                    if key == "baseMVA" {
                        if base_mva.is_some() {
                            return Err(MatpowerError::DuplicateField {
                                file: f(),
                                line: line_no,
                                field: "baseMVA",
                            });
                        }
                        let tok = value.trim_end().trim_end_matches(';').trim();
                        let v = parse_num(tok).ok_or_else(|| MatpowerError::BadNumber {
                            file: f(),
                            line: line_no,
                            field: "baseMVA",
                            token: tok.to_string(),
                        })?;
                        if !(v > 0.0 && v.is_finite()) {
                            return Err(MatpowerError::InvalidValue {
                                file: f(),
                                line: line_no,
                                field: "baseMVA",
                                what: format!("baseMVA must be positive and finite, got {v}"),
                            });
                        }
                        base_mva = Some(v);
                        break;
                    }
                    if let Some(fl) = field {
                        let Some(body) = value.strip_prefix('[') else {
                            return Err(MatpowerError::InvalidValue {
                                file: f(),
                                line: line_no,
                                field: fl.name(),
                                what: "expected a matrix starting with '['".to_string(),
                            });
                        };
                        if mats[fl as usize].is_some() {
                            return Err(MatpowerError::DuplicateField {
                                file: f(),
                                line: line_no,
                                field: fl.name(),
                            });
                        }
                        mats[fl as usize] = Some(Vec::new());
                        state = State::Matrix(fl, line_no, Vec::new());
                        rest = body;
                        continue;
                    }
                    // Ignored field: skip a matrix or cell array until it closes.
                    if let Some(body) = value.strip_prefix('[') {
                        state = State::Skip(']');
                        rest = body;
                        continue;
                    }
                    if let Some(body) = value.strip_prefix('{') {
                        state = State::Skip('}');
                        rest = body;
                        continue;
                    }
                    break;
                }
                State::Skip(close) => {
                    // Strings in cell arrays could contain the closing char inside quotes;
                    // skip quoted text.
                    let mut in_quote = false;
                    let mut end = None;
                    for (p, ch) in rest.char_indices() {
                        if ch == '\'' {
                            in_quote = !in_quote;
                        } else if ch == *close && !in_quote {
                            end = Some(p);
                            break;
                        }
                    }
                    match end {
                        Some(p) => {
                            rest = &rest[p + 1..];
                            state = State::Outside;
                        }
                        None => break,
                    }
                }
                State::Matrix(fl, _, cur) => {
                    let fl = *fl;
                    // Split off up to the next ';' or ']'.
                    let stop = rest.find([';', ']']);
                    let (chunk, delim) = match stop {
                        Some(p) => (&rest[..p], rest[p..].chars().next()),
                        None => (rest, None),
                    };
                    for tok in chunk.split(|c: char| c.is_whitespace() || c == ',') {
                        if tok.is_empty() {
                            continue;
                        }
                        let v = parse_num(tok).ok_or_else(|| MatpowerError::BadNumber {
                            file: f(),
                            line: line_no,
                            field: fl.name(),
                            token: tok.to_string(),
                        })?;
                        cur.push(v);
                    }
                    let Some(d) = delim else {
                        break;
                    };
                    let p = stop.unwrap_or(rest.len());
                    rest = &rest[p + 1..];
                    if !cur.is_empty() {
                        let vals = std::mem::take(cur);
                        if vals.len() < fl.min_cols() {
                            return Err(MatpowerError::TooFewColumns {
                                file: f(),
                                line: line_no,
                                field: fl.name(),
                                found: vals.len(),
                                needed: fl.min_cols(),
                            });
                        }
                        if let Some(m) = mats[fl as usize].as_mut() {
                            m.push(Row {
                                vals,
                                line: line_no,
                            });
                        }
                    }
                    if d == ']' {
                        state = State::Outside;
                    }
                }
            }
        }
    }
    if let State::Matrix(fl, start, _) = state {
        return Err(MatpowerError::Unterminated {
            file: f(),
            line: start,
            field: fl.name(),
        });
    }
    let base_mva = base_mva.ok_or(MatpowerError::MissingField {
        file: f(),
        field: "baseMVA",
    })?;
    let [bus, gen_rows, branch, gencost] = mats;
    let take = |m: Option<Vec<Row>>, fl: Field| {
        m.ok_or(MatpowerError::MissingField {
            file: f(),
            field: fl.name(),
        })
    };
    let bus = take(bus, Field::Bus)?;
    let gen_rows = take(gen_rows, Field::Gen)?;
    let branch = take(branch, Field::Branch)?;
    let gencost = take(gencost, Field::Gencost)?;
    if gencost.len() < gen_rows.len() {
        return Err(MatpowerError::GencostCount {
            file: f(),
            ngen: gen_rows.len(),
            ngencost: gencost.len(),
        });
    }
    for r in &gencost {
        let (model, ncost) = (r.vals[0], r.vals[3]);
        if model != 2.0 || !(1.0..=3.0).contains(&ncost) || ncost.fract() != 0.0 {
            return Err(MatpowerError::UnsupportedCost {
                file: f(),
                line: r.line,
                model,
                ncost,
            });
        }
        let needed = GENCOST_MIN_COLS + ncost as usize;
        if r.vals.len() < needed {
            return Err(MatpowerError::TooFewColumns {
                file: f(),
                line: r.line,
                field: "gencost",
                found: r.vals.len(),
                needed,
            });
        }
    }
    Ok(MatpowerCase {
        file: f(),
        name,
        base_mva,
        bus,
        gen_rows,
        branch,
        gencost,
    })
}

/// Parses a MATPOWER number: decimal/scientific, or `Inf`/`-Inf`/`NaN` in any case.
fn parse_num(tok: &str) -> Option<f64> {
    tok.parse::<f64>().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "function mpc = tiny\n\
mpc.version = '2';\n\
mpc.baseMVA = 100;\n\
mpc.areas = [\n 1 1;\n];\n\
mpc.bus_name = {\n 'a ] b';\n 'c';\n};\n\
%% bus data\n\
mpc.bus = [\n\
\t1\t3\t0\t0\t0\t0\t1\t1\t0\t230\t1\t1.1\t0.9;  % ref\n\
\t2 1 100 50 0 0 1 1 0 230 1 1.1 0.9; 3 1 0 0 0 0 1 1 0\n 230 1 1.1 0.9;\n\
];\n\
mpc.gen = [1, 0, 0, 10, -10, 1, 100, 1, 200, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0;];\n\
mpc.gencost = [\n 2 0 0 3 0.1 10 5;\n];\n\
mpc.branch = [\n 1 2 0.01 0.1 0.02 100 100 100 0 0 1 -30 30;\n 2 3 0.01 0.1 0.02 100 100 100 0 0 1 -30 30 1.5 2.5;\n]\n";

    fn p(s: &str) -> Result<MatpowerCase, MatpowerError> {
        parse_case(s, Path::new("test.m"))
    }

    #[test]
    fn parses_mixed_layout() {
        let c = p(GOOD).unwrap();
        assert_eq!(c.name, "test");
        assert_eq!(c.base_mva, 100.0);
        assert_eq!(c.bus.len(), 3);
        assert_eq!(c.bus[2].vals.len(), 13);
        assert_eq!(c.bus[2].line, 15);
        assert_eq!(c.gen_rows.len(), 1);
        assert_eq!(c.gen_rows[0].vals.len(), 21);
        assert_eq!(c.branch.len(), 2);
        assert_eq!(c.branch[1].vals.len(), 15);
        assert_eq!(c.gencost[0].vals[4], 0.1);
    }

    #[test]
    fn error_bad_number() {
        let s = GOOD.replace("2 1 100 50", "2 1 1x0 50");
        match p(&s).unwrap_err() {
            MatpowerError::BadNumber {
                line, field, token, ..
            } => {
                assert_eq!((line, field, token.as_str()), (14, "bus", "1x0"));
            }
            e => panic!("wrong error {e}"),
        }
    }

    #[test]
    fn error_too_few_columns() {
        let s = GOOD.replace(
            "0.01 0.1 0.02 100 100 100 0 0 1 -30 30;\n 2 3",
            "0.01;\n 2 3",
        );
        match p(&s).unwrap_err() {
            MatpowerError::TooFewColumns {
                field,
                found,
                needed,
                line,
                ..
            } => assert_eq!((field, found, needed, line), ("branch", 3, 13, 22)),
            e => panic!("wrong error {e}"),
        }
    }

    #[test]
    fn error_missing_field() {
        let s = GOOD.replace("mpc.gencost", "mpc.xgencost");
        assert!(matches!(
            p(&s).unwrap_err(),
            MatpowerError::MissingField {
                field: "gencost",
                ..
            }
        ));
        let s = GOOD.replace("mpc.baseMVA = 100;", "");
        assert!(matches!(
            p(&s).unwrap_err(),
            MatpowerError::MissingField {
                field: "baseMVA",
                ..
            }
        ));
    }

    #[test]
    fn error_duplicate_field() {
        let s = format!("{GOOD}mpc.gen = [\n];\n");
        assert!(matches!(
            p(&s).unwrap_err(),
            MatpowerError::DuplicateField { field: "gen", .. }
        ));
    }

    #[test]
    fn error_unterminated() {
        let s = GOOD.replace("30 1.5 2.5;\n]\n", "30 1.5 2.5;\n");
        match p(&s).unwrap_err() {
            MatpowerError::Unterminated { line, field, .. } => {
                assert_eq!((line, field), (21, "branch"))
            }
            e => panic!("wrong error {e}"),
        }
    }

    #[test]
    fn error_invalid_base() {
        let s = GOOD.replace("mpc.baseMVA = 100;", "mpc.baseMVA = -1;");
        assert!(matches!(
            p(&s).unwrap_err(),
            MatpowerError::InvalidValue {
                line: 3,
                field: "baseMVA",
                ..
            }
        ));
    }

    #[test]
    fn error_gencost_count() {
        let s = GOOD.replace(" 2 0 0 3 0.1 10 5;\n", "");
        assert!(matches!(
            p(&s).unwrap_err(),
            MatpowerError::GencostCount {
                ngen: 1,
                ngencost: 0,
                ..
            }
        ));
    }

    #[test]
    fn error_unsupported_cost() {
        let s = GOOD.replace(" 2 0 0 3 0.1 10 5;", " 1 0 0 3 0.1 10 5;");
        assert!(matches!(
            p(&s).unwrap_err(),
            MatpowerError::UnsupportedCost { line: 19, .. }
        ));
    }

    #[test]
    fn reads_a_latin1_comment_and_a_byte_order_mark_as_matpower_does() {
        let dir = std::env::temp_dir().join(format!("simdnlp-matpower-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let want = p(GOOD).unwrap();
        // one Latin-1 byte (0xFC, ü) in a comment: not UTF-8
        let (head, tail) = GOOD.split_once("%% bus data").unwrap();
        let latin1 = [
            head.as_bytes(),
            b"%% bus data by J\xFCrgen",
            tail.as_bytes(),
        ]
        .concat();
        assert!(std::str::from_utf8(&latin1).is_err());
        let path = dir.join("latin1.m");
        std::fs::write(&path, &latin1).unwrap();
        let got = read_case(&path).unwrap();
        assert_eq!(
            (got.bus, got.gen_rows, got.branch, got.gencost),
            (
                want.bus.clone(),
                want.gen_rows.clone(),
                want.branch.clone(),
                want.gencost.clone()
            )
        );
        // a UTF-8 byte-order mark right before mpc.baseMVA
        let body = GOOD.replace("function mpc = tiny\n", "");
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(body.as_bytes());
        let path = dir.join("bom.m");
        std::fs::write(&path, &bom).unwrap();
        assert_eq!(read_case(&path).unwrap().base_mva, 100.0);
        // the same through parse_case (text already decoded, BOM kept)
        let text = format!("\u{feff}{body}");
        assert_eq!(
            parse_case(&text, Path::new("bom.m")).unwrap().bus,
            p(&body).unwrap().bus
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn error_io() {
        let e = read_case("/nonexistent/dir/case.m").unwrap_err();
        assert!(matches!(e, MatpowerError::Io { .. }));
        assert!(e.to_string().contains("/nonexistent/dir/case.m"));
    }
}
