//! Compiled patterns: slots (the per-pattern Compressor), programs and evaluation.

use crate::data::DataView;
use crate::error::AdError;
use crate::eval::{LANES, Outputs, Parallelism, Scratch, Workspace, run};
use crate::expr::{Expr, VarRef};
use crate::graph::gradient;
use crate::program::{Program, VALUE, build, columns, refs};
use crate::scalar::Scalar;
use rayon::prelude::*;

/// How second-order programs are derived (both give the same values; see the crate docs
/// for the measurement that picked the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum SecondOrder {
    /// Symbolic reverse mode on each gradient entry (reverse-over-reverse).
    #[default]
    ReverseOverReverse,
    /// Symbolic forward mode on the gradient, one direction per slot (forward-over-reverse).
    ForwardOverReverse,
}

/// A pattern compiled once at model build: its first- and second-order slots and the
/// value, gradient and Hessian programs. `Send + Sync`; evaluation needs a [`Workspace`].
#[derive(Clone, Debug)]
pub struct Pattern<T> {
    expr: Expr,
    slots: Vec<VarRef>,
    hess: Vec<(u32, u32)>,
    params: Vec<VarRef>,
    vars: Vec<VarRef>,
    value: Program<T>,
    grad: Program<T>,
    /// gradient without the value output (used when no value array is passed)
    grad_only: Program<T>,
    hessp: Program<T>,
    max_real: Option<u32>,
    max_int: Option<u32>,
}

/// Size of one compiled program, for reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProgramStats {
    /// Real instructions (including loads and output stores).
    pub instructions: usize,
    /// Distinct computed nodes (after hash-consing).
    pub nodes: usize,
    /// Registers after reuse.
    pub registers: usize,
    /// Integer instructions of the index prologue.
    pub int_instructions: usize,
}

impl<T: Scalar> Pattern<T> {
    /// Compiles `expr` with the default second-order mode.
    pub fn compile(expr: &Expr) -> Result<Self, AdError> {
        Self::compile_with(expr, SecondOrder::default())
    }

    /// Compiles `expr`, deriving second order as `mode` says.
    pub fn compile_with(expr: &Expr, mode: SecondOrder) -> Result<Self, AdError> {
        let grad = gradient(expr)?;
        let slots: Vec<VarRef> = grad.iter().map(|(_, _, r)| r.clone()).collect();
        let globals: Vec<&crate::Index> = grad.iter().map(|(g, _, _)| g).collect();
        let slot_of = |g: &crate::Index| globals.iter().position(|h| *h == g);
        let mut hess_entries: Vec<((u32, u32), Expr)> = Vec::new();
        match mode {
            SecondOrder::ReverseOverReverse => {
                for (s, (_, gs, _)) in grad.iter().enumerate() {
                    if gs.as_const().is_some() {
                        continue;
                    }
                    for (gt, h, _) in gradient(gs)? {
                        if let Some(t) = slot_of(&gt) {
                            if t <= s {
                                hess_entries.push(((s as u32, t as u32), h));
                            }
                        }
                    }
                }
                hess_entries.sort_by_key(|(k, _)| *k);
            }
            SecondOrder::ForwardOverReverse => {
                let gexprs: Vec<Expr> = grad.iter().map(|(_, g, _)| g.clone()).collect();
                for (t, g) in globals.iter().enumerate() {
                    let col = crate::graph::tangent(&gexprs, g)?;
                    for (s, h) in col.into_iter().enumerate() {
                        if s >= t && h.as_const() != Some(0.0) {
                            hess_entries.push(((s as u32, t as u32), h));
                        }
                    }
                }
                hess_entries.sort_by_key(|(k, _)| *k);
            }
        }
        let ns = slots.len();
        let value = build::<T>(&[(expr.clone(), 0)], 1)?;
        let mut gouts: Vec<(Expr, u32)> = vec![(expr.clone(), VALUE)];
        gouts.extend(
            grad.iter()
                .enumerate()
                .map(|(s, (_, g, _))| (g.clone(), s as u32)),
        );
        let gradp = build::<T>(&gouts, ns)?;
        let grad_only = build::<T>(&gouts[1..], ns)?;
        let houts: Vec<(Expr, u32)> = hess_entries
            .iter()
            .enumerate()
            .map(|(j, (_, h))| (h.clone(), j as u32))
            .collect();
        let hessp = build::<T>(&houts, houts.len())?;
        let (max_real, max_int) = columns(expr)?;
        let (params, vars) = refs(expr)?;
        Ok(Pattern {
            expr: expr.clone(),
            slots,
            hess: hess_entries.iter().map(|(k, _)| *k).collect(),
            params,
            vars,
            value,
            grad: gradp,
            grad_only,
            hessp,
            max_real,
            max_int,
        })
    }

    /// The expression this pattern was compiled from.
    pub fn expr(&self) -> &Expr {
        &self.expr
    }

    /// First-order slots: the unique variable references with a structurally nonzero
    /// derivative, in order of first appearance. `out[k*nslots + s]` of
    /// [`Pattern::eval_gradients`] is `∂f/∂slots()[s]` at point `k`.
    pub fn slots(&self) -> &[VarRef] {
        &self.slots
    }

    /// Second-order slots `(a, b)`, `a >= b`, indices into [`Pattern::slots`]: the
    /// structurally nonzero entries of the lower triangle, sorted. Off-diagonal slots hold
    /// the mixed partial once.
    pub fn hess_slots(&self) -> &[(u32, u32)] {
        &self.hess
    }

    /// Unique parameter references (by global index), in order of appearance.
    pub fn params(&self) -> &[VarRef] {
        &self.params
    }

    /// Every unique variable reference the pattern reads (by global index, in order of
    /// appearance), including those with a structurally zero derivative (inside `sign`,
    /// `floor`, `ceil`, ...) that get no slot: use it to validate positions at build time.
    pub fn var_refs(&self) -> &[VarRef] {
        &self.vars
    }

    /// The 0-based `x` position of each of [`Pattern::var_refs`] at data point `point`.
    pub fn var_globals(&self, data: &DataView<'_, T>, point: usize, out: &mut [usize]) {
        for (o, s) in out.iter_mut().zip(&self.vars) {
            *o = usize::try_from(s.global.eval(data, point)).unwrap_or(usize::MAX);
        }
    }

    /// Number of first-order slots (the gradient stride).
    pub fn nslots(&self) -> usize {
        self.slots.len()
    }

    /// Number of second-order slots (the Hessian stride).
    pub fn nhess(&self) -> usize {
        self.hess.len()
    }

    /// Sizes of the value, gradient and Hessian programs.
    pub fn stats(&self) -> [ProgramStats; 3] {
        let st = |p: &Program<T>| ProgramStats {
            instructions: p.ins.len(),
            nodes: p.nodes,
            registers: p.nregs,
            int_instructions: p.iins.len(),
        };
        [st(&self.value), st(&self.grad), st(&self.hessp)]
    }

    /// All scratch memory for evaluating this pattern, with one register file per thread
    /// of rayon's current pool (see [`Workspace`]).
    pub fn workspace(&self) -> Workspace<T> {
        self.workspace_for_tasks(rayon::current_num_threads())
    }

    /// A workspace supporting up to `tasks` parallel tasks (at least 1).
    pub fn workspace_for_tasks(&self, tasks: usize) -> Workspace<T> {
        let nregs = self.value.nregs.max(self.grad.nregs).max(self.hessp.nregs);
        let niregs = self
            .value
            .niregs
            .max(self.grad.niregs)
            .max(self.hessp.niregs);
        Workspace {
            scratch: (0..tasks.max(1))
                .map(|_| Scratch::new(nregs, niregs))
                .collect(),
        }
    }

    /// Checks that `data` has every column this pattern reads, each with `data.len` rows.
    pub fn check_data(&self, data: &DataView<'_, T>) -> Result<(), AdError> {
        if let Some(c) = self.max_real {
            for col in 0..=c {
                let have = data.reals.get(col as usize).map(|s| s.len());
                if have.is_none_or(|h| h < data.len) {
                    return Err(AdError::MissingColumn {
                        kind: "real",
                        col,
                        len: data.len,
                        have,
                    });
                }
            }
        }
        if let Some(c) = self.max_int {
            for col in 0..=c {
                let have = data.ints.get(col as usize).map(|s| s.len());
                if have.is_none_or(|h| h < data.len) {
                    return Err(AdError::MissingColumn {
                        kind: "integer",
                        col,
                        len: data.len,
                        have,
                    });
                }
            }
        }
        Ok(())
    }

    /// Points that can be evaluated without reading out of bounds: `data.len` when the
    /// data and outputs are consistent (the documented contract), fewer otherwise (and 0
    /// when a column is missing). Debug builds assert consistency.
    fn points(
        &self,
        data: &DataView<'_, T>,
        out_len: usize,
        step: usize,
        extra: &[usize],
    ) -> usize {
        let ok = self.check_data(data).is_ok();
        debug_assert!(
            ok,
            "pattern data is missing columns: {:?}",
            self.check_data(data)
        );
        if !ok {
            return 0;
        }
        let mut n = data.len;
        if step > 0 {
            debug_assert!(
                out_len >= n * step,
                "output slice too short: {out_len} < {} * {step}",
                n
            );
            n = n.min(out_len / step);
        }
        for &e in extra {
            debug_assert!(
                e >= data.len,
                "values/weights slice too short: {e} < {}",
                data.len
            );
            n = n.min(e);
        }
        n
    }

    /// `out[k] = f(point k)` for `k < data.len`.
    pub fn eval_values(
        &self,
        ws: &mut Workspace<T>,
        data: &DataView<'_, T>,
        x: &[T],
        theta: &[T],
        out: &mut [T],
    ) {
        self.eval_values_with(ws, data, x, theta, out, Parallelism::Sequential)
    }

    /// [`Pattern::eval_values`] with a choice of parallelism.
    pub fn eval_values_with(
        &self,
        ws: &mut Workspace<T>,
        data: &DataView<'_, T>,
        x: &[T],
        theta: &[T],
        out: &mut [T],
        par: Parallelism,
    ) {
        let n = self.points(data, out.len(), 1, &[]);
        dispatch(&self.value, ws, data, x, theta, n, out, None, None, par);
    }

    /// `out[k*nslots + s] = ∂f/∂slot_s` at point `k`; `values[k] = f(point k)` if given.
    pub fn eval_gradients(
        &self,
        ws: &mut Workspace<T>,
        data: &DataView<'_, T>,
        x: &[T],
        theta: &[T],
        values: Option<&mut [T]>,
        out: &mut [T],
    ) {
        self.eval_gradients_with(ws, data, x, theta, values, out, Parallelism::Sequential)
    }

    /// [`Pattern::eval_gradients`] with a choice of parallelism.
    #[allow(clippy::too_many_arguments)]
    pub fn eval_gradients_with(
        &self,
        ws: &mut Workspace<T>,
        data: &DataView<'_, T>,
        x: &[T],
        theta: &[T],
        values: Option<&mut [T]>,
        out: &mut [T],
        par: Parallelism,
    ) {
        let vl = values.as_ref().map(|v| v.len());
        let n = self.points(data, out.len(), self.nslots(), vl.as_slice());
        let prog = if values.is_some() {
            &self.grad
        } else {
            &self.grad_only
        };
        dispatch(prog, ws, data, x, theta, n, out, values, None, par);
    }

    /// `out[k*nhess + h] = weights[k] * ∂²f/∂a∂b` for second-order slot `h = (a, b)`.
    pub fn eval_hessians(
        &self,
        ws: &mut Workspace<T>,
        data: &DataView<'_, T>,
        x: &[T],
        theta: &[T],
        weights: &[T],
        out: &mut [T],
    ) {
        self.eval_hessians_with(ws, data, x, theta, weights, out, Parallelism::Sequential)
    }

    /// [`Pattern::eval_hessians`] with a choice of parallelism.
    #[allow(clippy::too_many_arguments)]
    pub fn eval_hessians_with(
        &self,
        ws: &mut Workspace<T>,
        data: &DataView<'_, T>,
        x: &[T],
        theta: &[T],
        weights: &[T],
        out: &mut [T],
        par: Parallelism,
    ) {
        let n = self.points(data, out.len(), self.nhess(), &[weights.len()]);
        dispatch(
            &self.hessp,
            ws,
            data,
            x,
            theta,
            n,
            out,
            None,
            Some(weights),
            par,
        );
    }

    /// The 0-based `x` position of each first-order slot at data point `point`
    /// (`out.len()` must be at least `nslots()`; a negative position gives `usize::MAX`).
    pub fn slot_globals(&self, data: &DataView<'_, T>, point: usize, out: &mut [usize]) {
        for (o, s) in out.iter_mut().zip(&self.slots) {
            *o = usize::try_from(s.global.eval(data, point)).unwrap_or(usize::MAX);
        }
    }

    /// The 0-based `θ` position of each parameter reference at data point `point`.
    pub fn param_globals(&self, data: &DataView<'_, T>, point: usize, out: &mut [usize]) {
        for (o, s) in out.iter_mut().zip(&self.params) {
            *o = usize::try_from(s.global.eval(data, point)).unwrap_or(usize::MAX);
        }
    }

    pub(crate) fn programs(&self) -> [&Program<T>; 3] {
        [&self.value, &self.grad, &self.hessp]
    }
}

#[allow(clippy::too_many_arguments)]
fn dispatch<T: Scalar>(
    p: &Program<T>,
    ws: &mut Workspace<T>,
    data: &DataView<'_, T>,
    x: &[T],
    theta: &[T],
    n: usize,
    out: &mut [T],
    values: Option<&mut [T]>,
    weights: Option<&[T]>,
    par: Parallelism,
) {
    if ws.scratch.is_empty() {
        ws.scratch.push(Scratch::new(p.nregs, p.niregs));
    }
    let tasks = match par {
        Parallelism::Sequential => 1,
        Parallelism::Rayon { min_batch } => {
            let per = min_batch.max(LANES);
            n.div_ceil(per).min(ws.scratch.len()).max(1)
        }
    };
    let step = p.step;
    if tasks <= 1 {
        let mut o = Outputs {
            out,
            values,
            weights,
        };
        run(p, &mut ws.scratch[0], data, x, theta, 0, n, &mut o);
        return;
    }
    let chunk = n.div_ceil(tasks).div_ceil(LANES) * LANES;
    let tasks = n.div_ceil(chunk);
    let out = &mut out[..n * step];
    let mut values = values.map(|v| &mut v[..n]);
    // one (scratch, out chunk, values chunk) per task; no allocation: rayon's zip over
    // slices of the workspace and the outputs
    let scratch = &mut ws.scratch[..tasks];
    let run_task =
        |(t, sc): (usize, &mut Scratch<T>), o_chunk: &mut [T], v_chunk: Option<&mut [T]>| {
            let first = t * chunk;
            let last = (first + chunk).min(n);
            let mut o = Outputs {
                out: o_chunk,
                values: v_chunk,
                weights: weights.map(|w| &w[first..last]),
            };
            run(p, sc, data, x, theta, first, last, &mut o);
        };
    if step == 0 {
        // no per-point outputs except possibly values
        if let Some(v) = values.take() {
            scratch
                .par_iter_mut()
                .enumerate()
                .zip(v.par_chunks_mut(chunk))
                .for_each(|(ts, vc)| run_task(ts, &mut [], Some(vc)));
        }
        return;
    }
    match values.take() {
        Some(v) => scratch
            .par_iter_mut()
            .enumerate()
            .zip(
                out.par_chunks_mut(chunk * step)
                    .zip(v.par_chunks_mut(chunk)),
            )
            .for_each(|(ts, (oc, vc))| run_task(ts, oc, Some(vc))),
        None => scratch
            .par_iter_mut()
            .enumerate()
            .zip(out.par_chunks_mut(chunk * step))
            .for_each(|(ts, oc)| run_task(ts, oc, None)),
    }
}

impl<T: Scalar> Pattern<T> {
    /// A human-readable listing of the value, gradient and Hessian programs (one
    /// instruction per line), for inspection and reports.
    pub fn listing(&self) -> String {
        let mut s = String::new();
        for (name, p) in ["value", "gradient", "hessian"].iter().zip(self.programs()) {
            s.push_str(&format!("{name}: {} registers, step {}\n", p.nregs, p.step));
            for i in &p.iins {
                s.push_str(&format!("  {i:?}\n"));
            }
            for i in &p.ins {
                s.push_str(&format!("  {i:?}\n"));
            }
        }
        s
    }
}
