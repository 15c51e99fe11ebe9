//! The `.nl` reader: the text header, then the segments in text (`g`) or binary (`b`)
//! encoding, into a typed [`NlFile`].
//!
//! Written from the public description of the format (Gay, "Writing .nl Files"): ten header
//! lines of counts, then segments keyed by one letter — `F` imported functions, `S`
//! suffixes, `V` defined variables, `C` constraint bodies, `L` logical constraints, `O`
//! objectives, `d`/`x` dual and primal starts, `r`/`b` row and variable bounds, `k`/`K`
//! Jacobian column counts, `J`/`G` linear parts of rows and objectives. Expressions are in
//! prefix notation: `o<opcode>` operators, `n`/`s`/`l` numbers, `v<i>` variables or defined
//! variables, `f` function calls, `h` strings. Every malformed field is an
//! [`NlError::Malformed`] naming the line (text) or byte offset (binary) and the field.

use super::error::{Item, Location, NlError};
use super::tree::{Arity, Op, Tree};

/// Expressions nested deeper than this are rejected (the reader and the pattern compiler
/// recurse over them).
pub const MAX_DEPTH: usize = 2000;

/// The ten header lines.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NlHeader {
    /// `true` for a binary (`b`) file.
    pub binary: bool,
    /// The AMPL options of the first line (echoed into the `.sol` file).
    pub options: Vec<i64>,
    /// The `vbtol` value that follows the options when `options[1] == 3`.
    pub vbtol: Option<f64>,
    /// Number of variables.
    pub n_var: usize,
    /// Number of algebraic constraints.
    pub n_con: usize,
    /// Number of objectives.
    pub n_obj: usize,
    /// Number of range constraints.
    pub n_ranges: usize,
    /// Number of equality constraints.
    pub n_eqns: usize,
    /// Number of logical constraints.
    pub n_lcon: usize,
    /// Nonlinear constraints.
    pub nlc: usize,
    /// Nonlinear objectives.
    pub nlo: usize,
    /// Complementarity conditions (linear + nonlinear).
    pub n_cc: usize,
    /// Number of imported functions.
    pub nfunc: usize,
    /// Floating-point format of binary files (1 little-endian IEEE, 2 big-endian IEEE).
    pub arith: i64,
    /// Binary variables.
    pub nbv: usize,
    /// Linear integer variables.
    pub niv: usize,
    /// Nonlinear integer variables in both constraints and objectives, constraints only,
    /// objectives only.
    pub nlvbi: usize,
    /// See `nlvbi`.
    pub nlvci: usize,
    /// See `nlvbi`.
    pub nlvoi: usize,
    /// Nonlinear variables in both, constraints, objectives (variables are ordered so that
    /// these come first).
    pub nlvb: usize,
    /// See `nlvb`.
    pub nlvc: usize,
    /// See `nlvb`.
    pub nlvo: usize,
    /// Jacobian and objective-gradient nonzeros.
    pub nzc: usize,
    /// See `nzc`.
    pub nzo: usize,
    /// Number of common expressions (defined variables) of each kind, summed.
    pub n_common: usize,
}

/// An objective: sense, nonlinear part and linear part.
#[derive(Clone, Debug, PartialEq)]
pub struct NlObjective {
    /// `true` to maximize.
    pub maximize: bool,
    /// Nonlinear part (`O` segment).
    pub tree: Tree,
    /// Linear part `(variable, coefficient)` (`G` segment).
    pub linear: Vec<(usize, f64)>,
}

/// A defined variable (common expression): linear part plus nonlinear part.
#[derive(Clone, Debug, PartialEq)]
pub struct NlDefined {
    /// Linear terms `(variable, coefficient)`.
    pub linear: Vec<(usize, f64)>,
    /// Nonlinear part.
    pub tree: Tree,
}

/// A parsed `.nl` file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NlFile {
    /// The header.
    pub header: NlHeader,
    /// Nonlinear part of each constraint body (`Num(0)` for a linear row).
    pub con_trees: Vec<Tree>,
    /// Linear part of each constraint body (zero coefficients are sparsity only).
    pub con_linear: Vec<Vec<(usize, f64)>>,
    /// Row lower bounds (`-∞` when absent).
    pub con_lower: Vec<f64>,
    /// Row upper bounds (`+∞` when absent).
    pub con_upper: Vec<f64>,
    /// Where each constraint's `C` segment starts (for messages).
    pub con_at: Vec<Option<Location>>,
    /// Objectives.
    pub objectives: Vec<NlObjective>,
    /// Defined variables, by common-expression number.
    pub defined: Vec<Option<NlDefined>>,
    /// Variable lower bounds.
    pub var_lower: Vec<f64>,
    /// Variable upper bounds.
    pub var_upper: Vec<f64>,
    /// Primal start (0 where the `x` segment gives none).
    pub x0: Vec<f64>,
    /// Dual start in AMPL's sign convention (0 where the `d` segment gives none).
    pub y0: Vec<f64>,
    /// Names of imported functions (`F` segments).
    pub functions: Vec<String>,
}

/// Row and column names from the `.row` and `.col` files (empty when absent).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Names {
    /// Constraint names, then objective names.
    pub rows: Vec<String>,
    /// Variable names.
    pub cols: Vec<String>,
}

impl Names {
    /// Constraint `i` as an [`Item`].
    pub fn con(&self, i: usize) -> Item {
        Item::Constraint {
            index: i,
            name: self.rows.get(i).cloned(),
        }
    }
    /// Objective `i` as an [`Item`] (objective names follow the `n_con` constraint names).
    pub fn obj(&self, i: usize, n_con: usize) -> Item {
        Item::Objective {
            index: i,
            name: self.rows.get(n_con + i).cloned(),
        }
    }
    /// Variable `i` as an [`Item`].
    pub fn var(&self, i: usize) -> Item {
        Item::Variable {
            index: i,
            name: self.cols.get(i).cloned(),
        }
    }
}

/// Token reader over the bytes of the file, text or binary.
struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    line: usize,
    /// `None` for text; `Some(big_endian)` for binary segments.
    binary: Option<bool>,
    /// Start of the last token (binary locations).
    start: usize,
}

fn describe(tok: &[u8]) -> String {
    let s = String::from_utf8_lossy(tok);
    let s: String = s.chars().take(40).collect();
    format!("{s:?}")
}

impl<'a> Cursor<'a> {
    fn at(&self) -> Location {
        match self.binary {
            None => Location::Line(self.line),
            Some(_) => Location::Byte(self.start),
        }
    }

    fn err(&self, field: &str, reason: impl Into<String>) -> NlError {
        NlError::malformed(self.at(), field, reason)
    }

    fn skip_space(&mut self) {
        while let Some(&c) = self.data.get(self.pos) {
            if c == b' ' || c == b'\t' || c == b'\r' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Text: skips the rest of the line (comments, trailing fields). Binary: nothing.
    fn end_line(&mut self) {
        if self.binary.is_some() {
            return;
        }
        while let Some(&c) = self.data.get(self.pos) {
            self.pos += 1;
            if c == b'\n' {
                self.line += 1;
                return;
            }
        }
    }

    /// The next whitespace-separated token of the current text line.
    fn token(&mut self, field: &str) -> Result<&'a [u8], NlError> {
        self.skip_space();
        let begin = self.pos;
        while let Some(&c) = self.data.get(self.pos) {
            if c.is_ascii_whitespace() || c == b'#' {
                break;
            }
            self.pos += 1;
        }
        if begin == self.pos {
            let reason = if self.pos >= self.data.len() {
                "unexpected end of file".to_string()
            } else {
                "missing (end of line)".to_string()
            };
            return Err(self.err(field, reason));
        }
        Ok(&self.data[begin..self.pos])
    }

    fn bytes<const N: usize>(&mut self, field: &str) -> Result<[u8; N], NlError> {
        self.start = self.pos;
        match self.data.get(self.pos..self.pos + N) {
            Some(b) => {
                self.pos += N;
                let mut out = [0u8; N];
                out.copy_from_slice(b);
                if self.binary == Some(true) {
                    out.reverse();
                }
                Ok(out)
            }
            None => Err(self.err(field, "unexpected end of file")),
        }
    }

    /// A signed integer.
    fn int(&mut self, field: &str) -> Result<i64, NlError> {
        if self.binary.is_some() {
            return Ok(i32::from_le_bytes(self.bytes::<4>(field)?) as i64);
        }
        let tok = self.token(field)?;
        std::str::from_utf8(tok)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
            .ok_or_else(|| {
                self.err(
                    field,
                    format!("expected an integer, found {}", describe(tok)),
                )
            })
    }

    /// A nonnegative integer below `limit` (an index or a count).
    fn index(&mut self, field: &str, limit: usize) -> Result<usize, NlError> {
        let v = self.int(field)?;
        if v < 0 || v as u64 >= limit as u64 {
            return Err(self.err(
                field,
                format!("index out of range: {v} (must be in 0..{limit})"),
            ));
        }
        Ok(v as usize)
    }

    /// A count in `min..=max`.
    fn count(&mut self, field: &str, min: usize, max: usize) -> Result<usize, NlError> {
        let v = self.int(field)?;
        if v < min as i64 || v as u64 > max as u64 {
            return Err(self.err(field, format!("{v} is out of range {min}..={max}")));
        }
        Ok(v as usize)
    }

    /// A real number (NaN is rejected).
    fn real(&mut self, field: &str) -> Result<f64, NlError> {
        let v = if self.binary.is_some() {
            f64::from_le_bytes(self.bytes::<8>(field)?)
        } else {
            let tok = self.token(field)?;
            std::str::from_utf8(tok)
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
                .ok_or_else(|| {
                    self.err(field, format!("expected a number, found {}", describe(tok)))
                })?
        };
        if v.is_nan() {
            return Err(self.err(field, "NaN is not a valid constant"));
        }
        Ok(v)
    }

    /// A short integer constant (`s`).
    fn short(&mut self, field: &str) -> Result<f64, NlError> {
        if self.binary.is_some() {
            return Ok(i16::from_le_bytes(self.bytes::<2>(field)?) as f64);
        }
        Ok(self.int(field)? as f64)
    }

    /// A name (function, suffix): a token in text, a length-prefixed string in binary.
    fn name(&mut self, field: &str) -> Result<String, NlError> {
        if self.binary.is_some() {
            let n = self.int(field)?;
            if n < 0 || n as usize > self.data.len() - self.pos.min(self.data.len()) {
                return Err(self.err(field, format!("bad string length {n}")));
            }
            let s = &self.data[self.pos..self.pos + n as usize];
            self.pos += n as usize;
            return Ok(String::from_utf8_lossy(s).into_owned());
        }
        Ok(String::from_utf8_lossy(self.token(field)?).into_owned())
    }

    /// The next key letter (segment or expression node); `None` at the end of the file.
    /// Text files may have blank lines between segments.
    fn key(&mut self) -> Option<u8> {
        if self.binary.is_none() {
            loop {
                self.skip_space();
                match self.data.get(self.pos) {
                    Some(b'\n') => {
                        self.pos += 1;
                        self.line += 1;
                    }
                    _ => break,
                }
            }
        }
        self.start = self.pos;
        let c = *self.data.get(self.pos)?;
        self.pos += 1;
        Some(c)
    }

    /// The key letter of an expression node (end of file is an error).
    fn node_key(&mut self, field: &str) -> Result<u8, NlError> {
        self.key()
            .ok_or_else(|| self.err(field, "unexpected end of file"))
    }
}

/// Reads the ten header lines.
fn read_header(cur: &mut Cursor<'_>, len: usize) -> Result<NlHeader, NlError> {
    let mut h = NlHeader::default();
    let kind = cur
        .key()
        .ok_or_else(|| cur.err("file format letter", "the file is empty"))?;
    h.binary = match kind {
        b'g' | b'G' => false,
        b'b' | b'B' => true,
        other => {
            return Err(cur.err(
                "file format letter",
                format!(
                    "expected 'g' (text) or 'b' (binary), found {}",
                    describe(&[other])
                ),
            ));
        }
    };
    let nopt = cur.count("number of AMPL options", 0, 9)?;
    for k in 0..nopt {
        h.options.push(cur.int(&format!("AMPL option {}", k + 1))?);
    }
    if h.options.get(1) == Some(&3) {
        cur.skip_space();
        if !matches!(cur.data.get(cur.pos), None | Some(b'\n') | Some(b'#')) {
            h.vbtol = Some(cur.real("vbtol")?);
        }
    }
    cur.end_line();

    // the count fields may be followed by a comment; optional trailing fields read as 0
    let line = |cur: &mut Cursor<'_>, names: &[&str], required: usize| {
        let mut out = Vec::new();
        for (k, name) in names.iter().enumerate() {
            cur.skip_space();
            let eol = matches!(cur.data.get(cur.pos), None | Some(b'\n') | Some(b'#'));
            if eol && k >= required {
                out.push(0);
                continue;
            }
            let v = cur.int(name)?;
            if v < 0 {
                return Err(cur.err(name, format!("{v} is negative")));
            }
            if v as u64 > len as u64 {
                return Err(cur.err(
                    name,
                    format!("{v} is larger than the file ({len} bytes) could describe"),
                ));
            }
            out.push(v as usize);
        }
        cur.end_line();
        Ok::<_, NlError>(out)
    };
    let v = line(
        cur,
        &[
            "number of variables",
            "number of constraints",
            "number of objectives",
            "number of ranges",
            "number of equalities",
            "number of logical constraints",
        ],
        3,
    )?;
    (h.n_var, h.n_con, h.n_obj, h.n_ranges, h.n_eqns, h.n_lcon) =
        (v[0], v[1], v[2], v[3], v[4], v[5]);
    let v = line(
        cur,
        &[
            "nonlinear constraints",
            "nonlinear objectives",
            "linear complementarity conditions",
            "nonlinear complementarity conditions",
            "double-inequality complementarity conditions",
            "complementarity variables with nonzero lower bounds",
        ],
        2,
    )?;
    (h.nlc, h.nlo, h.n_cc) = (v[0], v[1], v[2] + v[3]);
    line(
        cur,
        &[
            "nonlinear network constraints",
            "linear network constraints",
        ],
        2,
    )?;
    let v = line(
        cur,
        &[
            "nonlinear variables in constraints",
            "nonlinear variables in objectives",
            "nonlinear variables in both",
        ],
        2,
    )?;
    (h.nlvc, h.nlvo, h.nlvb) = (v[0], v[1], v[2]);
    cur.skip_space();
    let v = line(
        cur,
        &[
            "linear network variables",
            "number of imported functions",
            "floating-point arithmetic kind",
            "flags",
        ],
        2,
    )?;
    (h.nfunc, h.arith) = (v[1], v[2] as i64);
    let v = line(
        cur,
        &[
            "binary variables",
            "integer variables",
            "nonlinear integer variables in both",
            "nonlinear integer variables in constraints",
            "nonlinear integer variables in objectives",
        ],
        5,
    )?;
    (h.nbv, h.niv, h.nlvbi, h.nlvci, h.nlvoi) = (v[0], v[1], v[2], v[3], v[4]);
    let v = line(
        cur,
        &["Jacobian nonzeros", "objective gradient nonzeros"],
        2,
    )?;
    (h.nzc, h.nzo) = (v[0], v[1]);
    line(
        cur,
        &["maximum row name length", "maximum column name length"],
        2,
    )?;
    let v = line(
        cur,
        &[
            "common expressions in both",
            "common expressions in constraints",
            "common expressions in objectives",
            "common expressions in one constraint",
            "common expressions in one objective",
        ],
        5,
    )?;
    h.n_common = v.iter().sum();
    if h.n_common > len {
        return Err(cur.err("common expressions", "more than the file could describe"));
    }
    Ok(h)
}

/// Reads a `.nl` file's bytes. `names` (from the `.row`/`.col` files) only improve messages.
pub fn parse(data: &[u8], names: &Names) -> Result<NlFile, NlError> {
    let mut cur = Cursor {
        data,
        pos: 0,
        line: 1,
        binary: None,
        start: 0,
    };
    let h = read_header(&mut cur, data.len())?;
    if h.binary {
        cur.binary = Some(match h.arith {
            0 | 1 => false,
            2 => true,
            k => {
                return Err(NlError::malformed(
                    Location::Line(6),
                    "floating-point arithmetic kind",
                    format!("binary files in arithmetic kind {k} are not supported (1 or 2 are)"),
                ));
            }
        });
    }
    let mut r = SegmentReader {
        cur,
        names,
        file: NlFile {
            con_trees: vec![Tree::Num(0.0); h.n_con],
            con_linear: vec![Vec::new(); h.n_con],
            con_lower: vec![f64::NEG_INFINITY; h.n_con],
            con_upper: vec![f64::INFINITY; h.n_con],
            con_at: vec![None; h.n_con],
            objectives: (0..h.n_obj)
                .map(|_| NlObjective {
                    maximize: false,
                    tree: Tree::Num(0.0),
                    linear: Vec::new(),
                })
                .collect(),
            defined: vec![None; h.n_common],
            var_lower: vec![f64::NEG_INFINITY; h.n_var],
            var_upper: vec![f64::INFINITY; h.n_var],
            x0: vec![0.0; h.n_var],
            y0: vec![0.0; h.n_con],
            functions: vec![String::new(); h.nfunc],
            header: h,
        },
        item: Item::File,
    };
    r.segments()?;
    Ok(r.file)
}

struct SegmentReader<'a, 'n> {
    cur: Cursor<'a>,
    names: &'n Names,
    file: NlFile,
    /// The row/objective being read (for unsupported-feature messages).
    item: Item,
}

impl SegmentReader<'_, '_> {
    fn h(&self) -> &NlHeader {
        &self.file.header
    }

    fn unsupported(&self, feature: String) -> NlError {
        NlError::Unsupported {
            feature,
            item: self.item.clone(),
            at: Some(self.cur.at()),
        }
    }

    fn segments(&mut self) -> Result<(), NlError> {
        let mut saw_bounds = false;
        while let Some(key) = self.cur.key() {
            let (n_var, n_con, n_obj) = (self.h().n_var, self.h().n_con, self.h().n_obj);
            match key {
                b'C' => {
                    let i = self.cur.index("constraint number of a C segment", n_con)?;
                    self.file.con_at[i] = Some(self.cur.at());
                    self.cur.end_line();
                    self.item = self.names.con(i);
                    self.file.con_trees[i] = self.expr(0)?;
                }
                b'O' => {
                    let i = self.cur.index("objective number of an O segment", n_obj)?;
                    let sense = self.cur.int("objective sense")?;
                    if sense != 0 && sense != 1 {
                        return Err(self.cur.err(
                            "objective sense",
                            format!("expected 0 (minimize) or 1 (maximize), found {sense}"),
                        ));
                    }
                    self.cur.end_line();
                    self.item = self.names.obj(i, n_con);
                    self.file.objectives[i].maximize = sense == 1;
                    self.file.objectives[i].tree = self.expr(0)?;
                }
                b'V' => {
                    let n_common = self.h().n_common;
                    let k = self.cur.int("defined variable number of a V segment")?;
                    if k < n_var as i64 || k >= (n_var + n_common) as i64 {
                        return Err(self.cur.err(
                            "defined variable number of a V segment",
                            format!(
                                "index out of range: {k} (must be in {n_var}..{})",
                                n_var + n_common
                            ),
                        ));
                    }
                    let k = k as usize - n_var;
                    let nlin = self.cur.count("number of linear terms", 0, n_var)?;
                    self.cur.int("defined variable position")?;
                    self.cur.end_line();
                    self.item = Item::Defined { index: k };
                    let linear = self.linear_terms(nlin)?;
                    let tree = self.expr(0)?;
                    self.file.defined[k] = Some(NlDefined { linear, tree });
                }
                b'L' => {
                    let i = self
                        .cur
                        .index("logical constraint number", self.h().n_lcon)?;
                    self.item = Item::Logical { index: i };
                    return Err(self.unsupported("a logical constraint".into()));
                }
                b'F' => {
                    let nfunc = self.h().nfunc;
                    let i = self.cur.index("function number of an F segment", nfunc)?;
                    self.cur.int("function type")?;
                    self.cur.int("function argument count")?;
                    self.file.functions[i] = self.cur.name("function name")?;
                    self.cur.end_line();
                }
                b'S' => self.suffix()?,
                b'x' => {
                    let x0 = self.initial_values("primal start", "variable", n_var)?;
                    for (i, v) in x0 {
                        self.file.x0[i] = v;
                    }
                }
                b'd' => {
                    let y0 = self.initial_values("dual start", "constraint", n_con)?;
                    for (i, v) in y0 {
                        self.file.y0[i] = v;
                    }
                }
                b'r' => {
                    self.cur.end_line();
                    for i in 0..n_con {
                        self.item = self.names.con(i);
                        let (l, u) = self.bound(&format!("bound of constraint {i}"), true)?;
                        self.file.con_lower[i] = l;
                        self.file.con_upper[i] = u;
                    }
                }
                b'b' => {
                    self.cur.end_line();
                    for i in 0..n_var {
                        self.item = self.names.var(i);
                        let (l, u) = self.bound(&format!("bound of variable {i}"), false)?;
                        self.file.var_lower[i] = l;
                        self.file.var_upper[i] = u;
                    }
                    saw_bounds = true;
                }
                b'k' | b'K' => {
                    let want = n_var.saturating_sub(1);
                    let n = self.cur.int("number of Jacobian column counts")?;
                    if n != want as i64 {
                        return Err(self.cur.err(
                            "number of Jacobian column counts",
                            format!("expected {want} (n_var - 1), found {n}"),
                        ));
                    }
                    self.cur.end_line();
                    for _ in 0..want {
                        self.cur.int("Jacobian column count")?;
                        self.cur.end_line();
                    }
                }
                b'J' => {
                    let i = self.cur.index("constraint number of a J segment", n_con)?;
                    let n = self.cur.count("number of Jacobian entries", 1, n_var)?;
                    self.cur.end_line();
                    self.file.con_linear[i] = self.linear_terms(n)?;
                }
                b'G' => {
                    let i = self.cur.index("objective number of a G segment", n_obj)?;
                    let n = self.cur.count("number of gradient entries", 1, n_var)?;
                    self.cur.end_line();
                    self.file.objectives[i].linear = self.linear_terms(n)?;
                }
                other => {
                    return Err(self.cur.err(
                        "segment letter",
                        format!("unknown segment {}", describe(&[other])),
                    ));
                }
            }
        }
        if !saw_bounds && self.h().n_var > 0 {
            return Err(self
                .cur
                .err("segment b", "the variable bounds segment is missing"));
        }
        Ok(())
    }

    /// An `x` or `d` segment: a count, then `index value` lines.
    fn initial_values(
        &mut self,
        what: &str,
        of: &str,
        n: usize,
    ) -> Result<Vec<(usize, f64)>, NlError> {
        let m = self.cur.count(&format!("number of {what} values"), 0, n)?;
        self.cur.end_line();
        let mut out = Vec::with_capacity(m);
        for _ in 0..m {
            let i = self.cur.index(&format!("{of} of a {what}"), n)?;
            out.push((i, self.cur.real(&format!("{what} value"))?));
            self.cur.end_line();
        }
        Ok(out)
    }

    fn linear_terms(&mut self, n: usize) -> Result<Vec<(usize, f64)>, NlError> {
        let n_var = self.h().n_var;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let j = self.cur.index("variable of a linear term", n_var)?;
            let c = self.cur.real("coefficient of a linear term")?;
            self.cur.end_line();
            out.push((j, c));
        }
        Ok(out)
    }

    /// One bound line: `0 l u`, `1 u`, `2 l`, `3`, `4 c` (and `5 k i` for rows).
    fn bound(&mut self, field: &str, row: bool) -> Result<(f64, f64), NlError> {
        let kind = self
            .cur
            .key()
            .ok_or_else(|| self.cur.err(field, "unexpected end of file"))?;
        let (inf, b) = (f64::INFINITY, kind.wrapping_sub(b'0'));
        let out = match b {
            0 => {
                let l = self.cur.real(field)?;
                let u = self.cur.real(field)?;
                (l, u)
            }
            1 => (-inf, self.cur.real(field)?),
            2 => (self.cur.real(field)?, inf),
            3 => (-inf, inf),
            4 => {
                let c = self.cur.real(field)?;
                (c, c)
            }
            5 if row => {
                self.cur.int(field)?;
                let v = self.cur.int(field)?;
                return Err(self.unsupported(format!("complementarity (with variable {})", v - 1)));
            }
            _ => {
                return Err(self
                    .cur
                    .err(field, format!("unknown bound type {}", describe(&[kind]))));
            }
        };
        self.cur.end_line();
        Ok(out)
    }

    fn suffix(&mut self) -> Result<(), NlError> {
        let kind = self.cur.count("suffix kind", 0, 7)?;
        let items = match kind & 3 {
            0 => self.h().n_var,
            1 => self.h().n_con + self.h().n_lcon,
            2 => self.h().n_obj,
            _ => 1,
        };
        let n = self.cur.count("number of suffix values", 0, items)?;
        self.cur.name("suffix name")?;
        self.cur.end_line();
        for _ in 0..n {
            self.cur.index("item of a suffix value", items)?;
            if kind & 4 != 0 {
                self.cur.real("suffix value")?;
            } else {
                self.cur.int("suffix value")?;
            }
            self.cur.end_line();
        }
        Ok(())
    }

    /// One expression node and its arguments.
    fn expr(&mut self, depth: usize) -> Result<Tree, NlError> {
        if depth > MAX_DEPTH {
            return Err(self.cur.err(
                "expression",
                format!("nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        let key = self.cur.node_key("expression")?;
        let node = match key {
            b'n' => Tree::Num(self.cur.real("number")?),
            b's' => Tree::Num(self.cur.short("number")?),
            b'l' => Tree::Num(self.cur.int("number")? as f64),
            b'v' => {
                let (n_var, n_common) = (self.h().n_var, self.h().n_common);
                let i = self.cur.index("variable index", n_var + n_common)?;
                if i < n_var {
                    Tree::Var(i)
                } else {
                    Tree::Defined(i - n_var)
                }
            }
            b'f' => {
                let nfunc = self.h().nfunc;
                let i = self.cur.index("function number", nfunc)?;
                let name = self.file.functions[i].clone();
                return Err(self.unsupported(format!("the imported function `{name}`")));
            }
            b'h' => return Err(self.unsupported("a string expression".into())),
            b'o' => {
                let code = self.cur.int("opcode")?;
                let op = Op::from_code(code)
                    .ok_or_else(|| self.cur.err("opcode", format!("unknown opcode o{code}")))?;
                if op.unsupported() {
                    return Err(self.unsupported(format!("the operator `{}` (o{code})", op.name())));
                }
                let n = match op.arity() {
                    Arity::Fixed(n) => n,
                    Arity::Counted => {
                        self.cur.end_line();
                        self.cur
                            .count("number of arguments", 1, self.cur.data.len())?
                    }
                };
                self.cur.end_line();
                let mut args = Vec::with_capacity(n);
                for _ in 0..n {
                    args.push(self.expr(depth + 1)?);
                }
                return Ok(Tree::Op(op, args));
            }
            other => {
                return Err(self.cur.err(
                    "expression",
                    format!("unknown expression node {}", describe(&[other])),
                ));
            }
        };
        self.cur.end_line();
        Ok(node)
    }
}
