//! Printing a model as mathematics (like ExaModels' `show`).

use crate::block::BlockCore;
use crate::model::{Model, PatNamer, Rows};
use simdnlp_ad::Scalar;
use std::fmt;

fn summary<T: Scalar>(v: &[T]) -> String {
    match v.first() {
        None => "–".into(),
        Some(&a) if v.iter().all(|&b| b == a || (a.is_nan() && b.is_nan())) => {
            fmt_num(Scalar::to_f64(a))
        }
        Some(_) => {
            let lo = v
                .iter()
                .fold(f64::INFINITY, |m, b| m.min(Scalar::to_f64(*b)));
            let hi = v
                .iter()
                .fold(f64::NEG_INFINITY, |m, b| m.max(Scalar::to_f64(*b)));
            format!("{}…{}", fmt_num(lo), fmt_num(hi))
        }
    }
}

fn fmt_num(x: f64) -> String {
    if x == f64::INFINITY {
        "∞".into()
    } else if x == f64::NEG_INFINITY {
        "-∞".into()
    } else {
        format!("{x}")
    }
}

impl<T: Scalar> Model<T> {
    fn block_line(&self, core: &BlockCore) -> String {
        let name = self.names.get(&core.uid).cloned().unwrap_or_default();
        if core.shape.ndim() == 0 {
            name
        } else {
            format!("{name}{}", core.shape)
        }
    }
}

impl<T: Scalar> fmt::Display for Model<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = &self.meta;
        let scalars: Vec<u32> = self
            .vars
            .iter()
            .chain(&self.params)
            .filter(|c| c.shape.ndim() == 0)
            .map(|c| c.uid)
            .collect();
        let title = if m.name.is_empty() {
            String::from("model")
        } else {
            format!("model `{}`", m.name)
        };
        writeln!(
            f,
            "{title}: {} {} variables, {} constraints, {} parameters; {} patterns, nnzj = {}, nnzh = {}",
            if m.minimize {
                "minimize over"
            } else {
                "maximize over"
            },
            m.nvar,
            m.ncon,
            self.theta.len(),
            self.pats.len(),
            m.nnzj,
            m.nnzh
        )?;
        if !self.vars.is_empty() {
            writeln!(f, "variables:")?;
            for v in &self.vars {
                let r = v.offset..v.offset + v.shape.len();
                writeln!(
                    f,
                    "  {:<24} {:>8} elements   lower {}   upper {}   start {}",
                    self.block_line(v),
                    v.shape.len(),
                    summary(&m.lvar[r.clone()]),
                    summary(&m.uvar[r.clone()]),
                    summary(&m.x0[r])
                )?;
            }
        }
        if !self.params.is_empty() {
            writeln!(f, "parameters:")?;
            for p in &self.params {
                let r = p.offset..p.offset + p.shape.len();
                writeln!(
                    f,
                    "  {:<24} {:>8} elements   value {}",
                    self.block_line(p),
                    p.shape.len(),
                    summary(&self.theta[r])
                )?;
            }
        }
        if !self.exprs.is_empty() {
            writeln!(f, "expressions:")?;
            for e in &self.exprs {
                let namer = PatNamer {
                    names: &self.names,
                    ints: &e.int_names,
                    reals: &[],
                    scalars: &scalars,
                };
                let name = self.names.get(&e.core.uid).cloned().unwrap_or_default();
                let idx = e.int_names.join(", ");
                writeln!(
                    f,
                    "  {name}[{idx}] = {}   for {}",
                    e.template.display(&namer),
                    e.desc
                )?;
            }
        }
        let objs: Vec<_> = self.obj_pats.iter().map(|&p| &self.pats[p]).collect();
        if !objs.is_empty() {
            writeln!(
                f,
                "objective ({}):",
                if m.minimize {
                    "minimize the sum of"
                } else {
                    "maximize the sum of"
                }
            )?;
            for cp in objs {
                let namer = PatNamer {
                    names: &self.names,
                    ints: &cp.cols.int_names,
                    reals: &cp.cols.real_names,
                    scalars: &scalars,
                };
                let name = self.names.get(&cp.core.uid).cloned().unwrap_or_default();
                let e = cp.expr.display(&namer);
                if cp.desc.is_empty() {
                    writeln!(f, "  {name}: {e}")?;
                } else {
                    writeln!(f, "  {name}: Σ {e}   for {}", cp.desc)?;
                }
            }
        }
        let cons: Vec<_> = self.con_pats.iter().map(|&p| &self.pats[p]).collect();
        if !cons.is_empty() {
            writeln!(f, "constraints:")?;
            for cp in cons {
                let namer = PatNamer {
                    names: &self.names,
                    ints: &cp.cols.int_names,
                    reals: &cp.cols.real_names,
                    scalars: &scalars,
                };
                let rng = if cp.desc.is_empty() {
                    String::new()
                } else {
                    format!("   for {}", cp.desc)
                };
                let e = cp.expr.display(&namer);
                match &cp.rows {
                    Rows::Base { row0 } => {
                        let name = self.names.get(&cp.core.uid).cloned().unwrap_or_default();
                        let r = *row0..*row0 + cp.cols.len;
                        let (lo, hi) = (summary(&m.lcon[r.clone()]), summary(&m.ucon[r]));
                        let body = if lo == hi {
                            format!("{e} = {lo}")
                        } else {
                            format!("{lo} ≤ {e} ≤ {hi}")
                        };
                        writeln!(f, "  {name}: {body}{rng}")?;
                    }
                    Rows::Augment { con, .. } => {
                        let target = self
                            .names
                            .get(&self.cons[*con].uid)
                            .cloned()
                            .unwrap_or_default();
                        let name = self.names.get(&cp.core.uid).cloned().unwrap_or_default();
                        let rows: Vec<String> =
                            cp.row_idx.iter().map(|i| i.display(&namer)).collect();
                        writeln!(f, "  {name}: {target}[{}] += {e}{rng}", rows.join(", "))?;
                    }
                    Rows::Objective => {}
                }
            }
        }
        Ok(())
    }
}

impl<T: Scalar> fmt::Debug for Model<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Model")
            .field("name", &self.meta.name)
            .field("nvar", &self.meta.nvar)
            .field("ncon", &self.meta.ncon)
            .field("nnzj", &self.meta.nnzj)
            .field("nnzh", &self.meta.nnzh)
            .field("patterns", &self.pats.len())
            .finish()
    }
}
