//! The CPU batch interpreter: structure-of-arrays registers over `LANES` data points.

use crate::data::DataView;
use crate::index::{floor_div, floor_rem};
use crate::ops::{Bin, BinOp, UnOp};
use crate::program::{Ar, Fk, IIns, IOp, ISrc, Ins, Program, Src, U1};
use crate::scalar::Scalar;

/// Data points per batch: every instruction is one loop over this many lanes.
pub const LANES: usize = 128;

/// Scratch registers for one thread.
#[derive(Clone, Debug)]
pub(crate) struct Scratch<T> {
    regs: Vec<T>,
    iregs: Vec<i64>,
    /// per register: `NO_VIEW` when its lanes live in `regs`, else the start of the
    /// contiguous slice of `x` it stands for in the current batch (zero-copy gather)
    view: Vec<usize>,
}

const NO_VIEW: usize = usize::MAX;

impl<T: Scalar> Scratch<T> {
    pub(crate) fn new(nregs: usize, niregs: usize) -> Self {
        Scratch {
            regs: vec![T::zero(); nregs.max(1) * LANES],
            iregs: vec![0; niregs.max(1) * LANES],
            view: vec![NO_VIEW; nregs.max(1)],
        }
    }

    fn ensure(&mut self, nregs: usize, niregs: usize) {
        // only grows when a workspace of another pattern is passed in
        if self.regs.len() < nregs * LANES {
            self.regs.resize(nregs * LANES, T::zero());
        }
        if self.iregs.len() < niregs * LANES {
            self.iregs.resize(niregs * LANES, 0);
        }
        if self.view.len() < nregs {
            self.view.resize(nregs, NO_VIEW);
        }
    }
}

/// All scratch memory of a pattern's evaluations; create it once with
/// [`crate::Pattern::workspace`], then evaluation allocates nothing.
///
/// It holds one register file per parallel task (`LANES × registers` values each): the
/// sequential evaluators use the first, the parallel ones ([`Parallelism::Rayon`]) split
/// the data points into at most [`Workspace::tasks`] contiguous ranges, each with its own
/// register file. A workspace made for one pattern may be used for another; it then grows
/// once to the larger size.
#[derive(Clone, Debug)]
pub struct Workspace<T> {
    pub(crate) scratch: Vec<Scratch<T>>,
    /// base addresses of the data columns (real then integer) for the JIT-compiled
    /// programs, refilled on each call (allocates only when a call has more columns than
    /// the pattern the workspace was made for)
    pub(crate) columns: Vec<usize>,
    /// the output and weight pointers of a group's members (see [`crate::PatternGroup`]),
    /// refilled on each call
    pub(crate) pointers: Vec<usize>,
}

impl<T: Scalar> Workspace<T> {
    /// Maximum number of parallel tasks this workspace supports.
    pub fn tasks(&self) -> usize {
        self.scratch.len()
    }
}

pub use simdnlp_device::Parallelism;

/// What a pattern (or a group of patterns) is evaluated at: the data points, the variables
/// `x`, the parameters `θ`, and how the points are split across threads (default
/// [`Parallelism::Sequential`]). Every `eval_*` method of [`crate::Pattern`] and
/// [`crate::PatternGroup`] takes one.
///
/// ```
/// use simdnlp_ad::{DataView, EvalInputs, Expr, Index, Parallelism, Pattern, VarRef};
/// // f = (x_i − 1)² at every data point i (an integer column)
/// let i = Index::field(0);
/// let x_i = Expr::var(VarRef::new(0, vec![i.clone()], i));
/// let pattern = Pattern::<f64>::compile(&(x_i - 1).powi(2))?;
/// let points: Vec<i64> = vec![0, 1, 2];
/// let columns: [&[i64]; 1] = [&points];
/// let data = DataView::new(3, &[], &columns);
/// let mut ws = pattern.workspace();
/// let mut out = [0.0; 3];
/// let x = [1.0, 2.0, 4.0];
/// let inputs = EvalInputs::new(&data, &x, &[]).parallel(Parallelism::rayon_batches(1));
/// pattern.eval_values(&mut ws, &inputs, &mut out);
/// assert_eq!(out, [0.0, 1.0, 9.0]);
/// # Ok::<(), simdnlp_ad::AdError>(())
/// ```
#[derive(Clone, Copy)]
pub struct EvalInputs<'a, 'd, T> {
    /// The data points (`data.len` of them) and their columns.
    pub data: &'a DataView<'d, T>,
    /// The variables.
    pub x: &'a [T],
    /// The parameters.
    pub theta: &'a [T],
    /// How the points are split across threads.
    pub par: Parallelism,
}

impl<'a, 'd, T> EvalInputs<'a, 'd, T> {
    /// `data`, `x` and `theta`, evaluated on one thread.
    pub fn new(data: &'a DataView<'d, T>, x: &'a [T], theta: &'a [T]) -> Self {
        Self {
            data,
            x,
            theta,
            par: Parallelism::Sequential,
        }
    }

    /// The same inputs, split across threads as `par` says.
    pub fn parallel(self, par: Parallelism) -> Self {
        Self { par, ..self }
    }
}

/// Which CPU evaluator runs a pattern's programs.
///
/// Both compute bit-identical results (see the `jit` module docs of this crate for the one
/// exception, a panicking user function). The JIT is only built for `f64` patterns; `f32`
/// patterns, targets Cranelift does not support and any compile error use the interpreter
/// (logged once with `tracing`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Evaluator {
    /// Native code compiled with Cranelift when the pattern is compiled: one loop over the
    /// data points with the program's registers in machine registers.
    #[default]
    Jit,
    /// The batch interpreter ([`LANES`] points per instruction): the reference and the
    /// fallback.
    Interp,
}

impl Evaluator {
    /// The name used on command lines and in reports: `"jit"` or `"interp"`.
    pub fn name(self) -> &'static str {
        match self {
            Evaluator::Jit => "jit",
            Evaluator::Interp => "interp",
        }
    }
}

impl std::fmt::Display for Evaluator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Evaluator {
    type Err = String;

    /// Parses `"jit"` or `"interp"` (also `"interpreter"`).
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "jit" => Ok(Evaluator::Jit),
            "interp" | "interpreter" => Ok(Evaluator::Interp),
            _ => Err(format!("unknown evaluator `{s}` (expected jit or interp)")),
        }
    }
}

/// Where the outputs of one evaluation go.
pub(crate) struct Outputs<'a, T> {
    /// `out[(k - first) * step + slot]`
    pub out: &'a mut [T],
    /// value per point (gradient programs), `values[k - first]`
    pub values: Option<&'a mut [T]>,
    /// weights per point (Hessian programs), `weights[k - first]`
    pub weights: Option<&'a [T]>,
}

/// The lanes of register `r` while `dst` is borrowed mutably: a view into `x` or a slice
/// of the register file below (`lo`) or above (`hi`) `dst`.
#[inline(always)]
fn reg<'a, T>(rf: &Regs<'a, T>, dst: u32, r: u32, n: usize) -> &'a [T] {
    let v = rf.view[r as usize];
    if v != NO_VIEW {
        return &rf.x[v..v + n];
    }
    if r < dst {
        let o = r as usize * LANES;
        &rf.lo[o..o + n]
    } else {
        let o = (r - dst - 1) as usize * LANES;
        &rf.hi[o..o + n]
    }
}

/// Read-only side of the register file during one instruction.
struct Regs<'a, T> {
    lo: &'a [T],
    hi: &'a [T],
    x: &'a [T],
    view: &'a [usize],
}

/// An operand: lanes or a constant.
#[derive(Clone, Copy)]
enum Opd<'a, T> {
    S(&'a [T]),
    C(T),
}

#[inline(always)]
fn opd<'a, T: Copy>(rf: &Regs<'a, T>, dst: u32, s: Src<T>, n: usize) -> Opd<'a, T> {
    match s {
        Src::R(r) => Opd::S(reg(rf, dst, r, n)),
        Src::C(c) => Opd::C(c),
    }
}

#[inline(always)]
fn bin_lanes<T: Scalar>(d: &mut [T], a: Opd<'_, T>, b: Opd<'_, T>, f: impl Fn(T, T) -> T) {
    match (a, b) {
        (Opd::S(a), Opd::S(b)) => {
            for ((o, &x), &y) in d.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
        (Opd::S(a), Opd::C(c)) => {
            for (o, &x) in d.iter_mut().zip(a) {
                *o = f(x, c);
            }
        }
        (Opd::C(c), Opd::S(b)) => {
            for (o, &y) in d.iter_mut().zip(b) {
                *o = f(c, y);
            }
        }
        (Opd::C(c1), Opd::C(c2)) => {
            let v = f(c1, c2);
            d.iter_mut().for_each(|o| *o = v);
        }
    }
}

/// The contiguous start `col[0] + off` when `col` holds consecutive positions whose slice
/// lies inside `src`.
#[inline(always)]
fn contiguous(col: &[i64], off: i64, len: usize) -> Option<usize> {
    let &c0 = col.first()?;
    let ok = col
        .iter()
        .zip(0i64..)
        .fold(true, |ok, (&v, l)| ok & (v == c0.wrapping_add(l)));
    let start = usize::try_from(c0.checked_add(off)?).ok()?;
    (ok && start.checked_add(col.len())? <= len).then_some(start)
}

#[inline(always)]
fn gather<T: Scalar>(
    d: &mut [T],
    src: &[T],
    idx: ISrc,
    off: i64,
    ints: &[&[i64]],
    iregs: &[i64],
    b0: usize,
) {
    let n = d.len();
    let nan = T::nan();
    let look = |i: i64| {
        src.get(i.wrapping_add(off) as usize)
            .copied()
            .unwrap_or(nan)
    };
    match idx {
        ISrc::F(c) => {
            let col = &ints[c as usize][b0..b0 + n];
            for (o, &i) in d.iter_mut().zip(col) {
                *o = look(i);
            }
        }
        ISrc::R(r) => {
            let o0 = r as usize * LANES;
            for (o, &i) in d.iter_mut().zip(&iregs[o0..o0 + n]) {
                *o = look(i);
            }
        }
        ISrc::C(c) => {
            let v = look(c);
            d.iter_mut().for_each(|o| *o = v);
        }
    }
}

#[inline(always)]
fn int_operand<'a>(
    s: ISrc,
    ints: &'a [&'a [i64]],
    lo: &'a [i64],
    b0: usize,
    n: usize,
) -> Result<&'a [i64], i64> {
    match s {
        ISrc::F(c) => Ok(&ints[c as usize][b0..b0 + n]),
        ISrc::R(r) => {
            let o = r as usize * LANES;
            Ok(&lo[o..o + n])
        }
        ISrc::C(c) => Err(c),
    }
}

fn run_int(iins: &[IIns], iregs: &mut [i64], ints: &[&[i64]], b0: usize, n: usize) {
    for ins in iins {
        // integer registers are assigned in order, so operands are always below dst
        let (lo, rest) = iregs.split_at_mut(ins.dst as usize * LANES);
        let d = &mut rest[..n];
        let f = |a: i64, b: i64| match ins.op {
            IOp::Add => a.wrapping_add(b),
            IOp::Sub => a.wrapping_sub(b),
            IOp::Mul => a.wrapping_mul(b),
            IOp::FloorDiv => floor_div(a, b),
            IOp::Rem => floor_rem(a, b),
        };
        let a = int_operand(ins.a, ints, lo, b0, n);
        let b = int_operand(ins.b, ints, lo, b0, n);
        match (a, b) {
            (Ok(a), Ok(b)) => {
                for ((o, &x), &y) in d.iter_mut().zip(a).zip(b) {
                    *o = f(x, y);
                }
            }
            (Ok(a), Err(c)) => {
                for (o, &x) in d.iter_mut().zip(a) {
                    *o = f(x, c);
                }
            }
            (Err(c), Ok(b)) => {
                for (o, &y) in d.iter_mut().zip(b) {
                    *o = f(c, y);
                }
            }
            (Err(c1), Err(c2)) => {
                let v = f(c1, c2);
                d.iter_mut().for_each(|o| *o = v);
            }
        }
    }
}

macro_rules! with_ar {
    ($T:ty, $op:expr, $f:ident => $body:expr) => {
        match $op {
            Ar::Add => {
                let $f = |x: $T, y: $T| x + y;
                $body
            }
            Ar::Sub => {
                let $f = |x: $T, y: $T| x - y;
                $body
            }
            Ar::Mul => {
                let $f = |x: $T, y: $T| x * y;
                $body
            }
            Ar::Div => {
                let $f = |x: $T, y: $T| x / y;
                $body
            }
        }
    };
}

macro_rules! with_u {
    ($T:ty, $op:expr, $f:ident => $body:expr) => {
        match $op {
            U1::Abs2 => {
                let $f = |x: $T| x * x;
                $body
            }
            U1::Neg => {
                let $f = |x: $T| -x;
                $body
            }
        }
    };
}

#[inline(always)]
fn lanes3<T: Copy>(d: &mut [T], a: &[T], b: &[T], c: &[T], f: impl Fn(T, T, T) -> T) {
    let n = d.len();
    let (a, b, c) = (&a[..n], &b[..n], &c[..n]);
    for (((o, &x), &y), &z) in d.iter_mut().zip(a).zip(b).zip(c) {
        *o = f(x, y, z);
    }
}

/// Executes a fused pair: every combination is its own monomorphized loop.
#[inline(never)]
fn fused<T: Scalar>(kind: Fk, d: &mut [T], a: &[T], b: &[T], c: &[T]) {
    match kind {
        Fk::BB(f, g, left) => with_ar!(T, f, ff => with_ar!(T, g, gg => {
            if left {
                lanes3(d, a, b, c, |x, y, z| gg(ff(x, y), z))
            } else {
                lanes3(d, a, b, c, |x, y, z| gg(z, ff(x, y)))
            }
        })),
        Fk::UB(u, g, left) => with_u!(T, u, uu => with_ar!(T, g, gg => {
            if left {
                lanes3(d, a, a, c, |x, _, z| gg(uu(x), z))
            } else {
                lanes3(d, a, a, c, |x, _, z| gg(z, uu(x)))
            }
        })),
        Fk::BU(f, u) => {
            with_ar!(T, f, ff => with_u!(T, u, uu => lanes3(d, a, b, b, |x, y, _| uu(ff(x, y)))))
        }
        Fk::UU(u1, u2) => {
            with_u!(T, u1, f1 => with_u!(T, u2, f2 => lanes3(d, a, a, a, |x, _, _| f2(f1(x)))))
        }
    }
}

/// Writes the output registers point-major: `out[l*step + s] = w[l] * reg[out_regs[s]][l]`.
fn scatter<T: Scalar>(sc: &Scratch<T>, x: &[T], out_regs: &[u32], out: &mut [T], w: Option<&[T]>) {
    let step = out_regs.len();
    if step == 0 {
        return;
    }
    let n = out.len() / step;
    let r = |s: usize| {
        let r = out_regs[s] as usize;
        match sc.view[r] {
            NO_VIEW => &sc.regs[r * LANES..][..n],
            v => &x[v..v + n],
        }
    };
    match (step, w) {
        (1, None) => out.copy_from_slice(r(0)),
        (1, Some(w)) => {
            for ((o, &a), &wl) in out.iter_mut().zip(r(0)).zip(w) {
                *o = wl * a;
            }
        }
        (2, None) => {
            for ((o, &a), &b) in out.chunks_exact_mut(2).zip(r(0)).zip(r(1)) {
                o[0] = a;
                o[1] = b;
            }
        }
        (2, Some(w)) => {
            for (((o, &a), &b), &wl) in out.chunks_exact_mut(2).zip(r(0)).zip(r(1)).zip(w) {
                o[0] = wl * a;
                o[1] = wl * b;
            }
        }
        (3, None) => {
            for (((o, &a), &b), &c) in out.chunks_exact_mut(3).zip(r(0)).zip(r(1)).zip(r(2)) {
                o[0] = a;
                o[1] = b;
                o[2] = c;
            }
        }
        (3, Some(w)) => {
            for ((((o, &a), &b), &c), &wl) in
                out.chunks_exact_mut(3).zip(r(0)).zip(r(1)).zip(r(2)).zip(w)
            {
                o[0] = wl * a;
                o[1] = wl * b;
                o[2] = wl * c;
            }
        }
        _ => {
            // row by row (contiguous writes into the point-major output), slots in tiles
            // of up to 32 registers resolved once per batch
            const TILE: usize = 32;
            let mut srcs: [&[T]; TILE] = [&[]; TILE];
            for t0 in (0..step).step_by(TILE) {
                let t1 = (t0 + TILE).min(step);
                for (k, s) in (t0..t1).enumerate() {
                    srcs[k] = r(s);
                }
                let srcs = &srcs[..t1 - t0];
                for (l, row) in out.chunks_exact_mut(step).enumerate() {
                    let row = &mut row[t0..t1];
                    match w {
                        Some(w) => {
                            let wl = w[l];
                            for (o, src) in row.iter_mut().zip(srcs) {
                                *o = wl * src[l];
                            }
                        }
                        None => {
                            for (o, src) in row.iter_mut().zip(srcs) {
                                *o = src[l];
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Runs `p` on data points `points` (columns are validated by the caller; `inputs.par`
/// is the caller's business).
pub(crate) fn run<T: Scalar>(
    p: &Program<T>,
    sc: &mut Scratch<T>,
    inputs: &EvalInputs<'_, '_, T>,
    points: std::ops::Range<usize>,
    o: &mut Outputs<'_, T>,
) {
    let EvalInputs { data, x, theta, .. } = *inputs;
    let (first, last) = (points.start, points.end);
    sc.ensure(p.nregs, p.niregs);
    sc.view.iter_mut().for_each(|v| *v = NO_VIEW);
    for &(r, c) in &p.consts {
        sc.regs[r as usize * LANES..][..LANES]
            .iter_mut()
            .for_each(|o| *o = c);
    }
    let step = p.step;
    let direct_last = p.direct_last && o.weights.is_none();
    let mut b0 = first;
    while b0 < last {
        let n = LANES.min(last - b0);
        let rel = b0 - first;
        run_int(&p.iins, &mut sc.iregs, data.ints, b0, n);
        // contiguity of the index column last checked in this batch
        let mut contig_cache: Option<(u32, i64, Option<usize>)> = None;
        for (ii, ins) in p.ins.iter().enumerate() {
            let Some(dst) = ins.dst() else {
                // `Ins::Value`: the value output gets `src`
                if let (Ins::Value { src }, Some(vals)) = (ins, o.values.as_deref_mut()) {
                    let dv = &mut vals[rel..rel + n];
                    match *src {
                        Src::R(r) => {
                            let v = sc.view[r as usize];
                            if v != NO_VIEW {
                                dv.copy_from_slice(&x[v..v + n]);
                            } else {
                                dv.copy_from_slice(&sc.regs[r as usize * LANES..][..n]);
                            }
                        }
                        Src::C(c) => dv.iter_mut().for_each(|v| *v = c),
                    }
                }
                continue;
            };
            // zero-copy gather: consecutive positions become a view into x
            if let Ins::X {
                idx: ISrc::F(c),
                off,
                ..
            } = ins
            {
                let col = &data.ints[*c as usize][b0..b0 + n];
                let start = match contig_cache {
                    Some((cc, coff, st)) if cc == *c => st.and_then(|s| {
                        let s = (s as i64).wrapping_sub(coff).wrapping_add(*off);
                        usize::try_from(s).ok().filter(|&s| s + n <= x.len())
                    }),
                    _ => {
                        let st = contiguous(col, *off, x.len());
                        contig_cache = Some((*c, *off, st));
                        st
                    }
                };
                if let Some(st) = start {
                    sc.view[dst as usize] = st;
                    continue;
                }
            }
            // the last instruction of a single-output unweighted program writes straight
            // into the output (no register, no scatter)
            let direct = direct_last && ii + 1 == p.ins.len();
            let (d, rf, dreg): (&mut [T], Regs<'_, T>, u32) = if direct {
                let rf = Regs {
                    lo: &sc.regs[..],
                    hi: &[],
                    x,
                    view: &sc.view,
                };
                (&mut o.out[rel..rel + n], rf, u32::MAX)
            } else {
                sc.view[dst as usize] = NO_VIEW;
                let (lo, rest) = sc.regs.split_at_mut(dst as usize * LANES);
                let (d, hi) = rest.split_at_mut(LANES);
                (
                    &mut d[..n],
                    Regs {
                        lo,
                        hi,
                        x,
                        view: &sc.view,
                    },
                    dst,
                )
            };
            match ins {
                Ins::X { idx, off, .. } => gather(d, x, *idx, *off, data.ints, &sc.iregs, b0),
                Ins::P { idx, off, .. } => gather(d, theta, *idx, *off, data.ints, &sc.iregs, b0),
                Ins::D { col, .. } => d.copy_from_slice(&data.reals[*col as usize][b0..b0 + n]),
                Ins::I { idx, off, .. } => match *idx {
                    ISrc::F(c) => {
                        for (o, &i) in d.iter_mut().zip(&data.ints[c as usize][b0..b0 + n]) {
                            *o = T::from_f64(i.wrapping_add(*off) as f64);
                        }
                    }
                    ISrc::R(r) => {
                        for (o, &i) in d.iter_mut().zip(&sc.iregs[r as usize * LANES..][..n]) {
                            *o = T::from_f64(i.wrapping_add(*off) as f64);
                        }
                    }
                    ISrc::C(c) => {
                        let v = T::from_f64(c.wrapping_add(*off) as f64);
                        d.iter_mut().for_each(|o| *o = v);
                    }
                },
                Ins::Fill { c, .. } => d.iter_mut().for_each(|o| *o = *c),
                Ins::Un { op, a, .. } => {
                    let a = reg(&rf, dreg, *a, n);
                    match op {
                        UnOp::B(u) => u.lanes(d, a),
                        UnOp::Powi(k) => {
                            for (o, &v) in d.iter_mut().zip(a) {
                                *o = v.powi(*k);
                            }
                        }
                        UnOp::Powf(pw) => {
                            let pw = T::from_f64(*pw);
                            for (o, &v) in d.iter_mut().zip(a) {
                                *o = v.powf(pw);
                            }
                        }
                        UnOp::User(f, ord) => {
                            for (o, &v) in d.iter_mut().zip(a) {
                                *o = T::from_f64(f.eval(*ord, Scalar::to_f64(v)));
                            }
                        }
                    }
                }
                Ins::Bin { op, a, b, .. } => {
                    let (a, b) = (opd(&rf, dreg, *a, n), opd(&rf, dreg, *b, n));
                    match op {
                        BinOp::B(Bin::Add) => bin_lanes(d, a, b, |x, y| x + y),
                        BinOp::B(Bin::Sub) => bin_lanes(d, a, b, |x, y| x - y),
                        BinOp::B(Bin::Mul) => bin_lanes(d, a, b, |x, y| x * y),
                        BinOp::B(Bin::Div) => bin_lanes(d, a, b, |x, y| x / y),
                        BinOp::B(Bin::Pow) => bin_lanes(d, a, b, |x, y| x.powf(y)),
                        BinOp::B(Bin::Atan2) => bin_lanes(d, a, b, |x, y| x.atan2(y)),
                        BinOp::B(Bin::Hypot) => bin_lanes(d, a, b, |x, y| x.hypot(y)),
                        BinOp::B(Bin::Max) => bin_lanes(d, a, b, |x, y| Bin::Max.eval(x, y)),
                        BinOp::B(Bin::Min) => bin_lanes(d, a, b, |x, y| Bin::Min.eval(x, y)),
                        BinOp::B(Bin::Ge) => bin_lanes(d, a, b, |x, y| Bin::Ge.eval(x, y)),
                        BinOp::B(Bin::Gt) => bin_lanes(d, a, b, |x, y| Bin::Gt.eval(x, y)),
                        BinOp::User(f, part) => bin_lanes(d, a, b, |x, y| {
                            T::from_f64(f.eval(*part, Scalar::to_f64(x), Scalar::to_f64(y)))
                        }),
                    }
                }
                Ins::Fused { kind, a, b, c, .. } => {
                    let (a, b, c) = (
                        reg(&rf, dreg, *a, n),
                        reg(&rf, dreg, *b, n),
                        reg(&rf, dreg, *c, n),
                    );
                    fused(*kind, d, a, b, c);
                }
                Ins::Value { .. } => {}
            }
        }
        if !direct_last {
            scatter(
                sc,
                x,
                &p.out_regs,
                &mut o.out[rel * step..(rel + n) * step],
                o.weights.map(|w| &w[rel..rel + n]),
            );
        }
        b0 += n;
    }
}
