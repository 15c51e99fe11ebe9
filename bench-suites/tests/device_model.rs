//! `Model`s evaluated on the emulated CUDA device (`simdnlp_modeling::DeviceModel` on
//! `Emu`, i.e. the emitted pattern kernels compiled by g++ and the segmented sums of the
//! device) equal the model's CPU callbacks on the interpreter: the 18 Lukšan–Vlček
//! problems at N = 20, every COPS problem at its small preset and the bundled PGLIB-OPF
//! cases up to case118.
//!
//! Every entry but the objective is compared **bitwise** (`-0.0` and `+0.0` count as
//! equal: the device's segmented sums start from `+0`): Jacobian and Hessian entries are
//! written by one data point each (doubled entries by `v + v` on both sides), and the
//! gradient and constraint sums add their terms in the CPU's order. The objective is summed
//! by the device's parallel reduction (in another order than the CPU's loop), so it must
//! agree within `(1e-12 + nvar·ε)` relative, as `gpu-check` stage 3 asks.
//!
//! g++ is required (CI installs it); `SIMDNLP_SKIP_GXX=1` skips on a machine without it.

use simdnlp_bench::opf::{OpfData, bundled_pglib_dir, model::acopf};
use simdnlp_bench::{cops, lv};
use simdnlp_device::{Device, DeviceError, Emu};
use simdnlp_modeling::{DeviceModel, Evaluator, Model, NlpModel};
use std::time::Instant;

/// The device (one per test; each compiles the interior-point kernels once), or `None`
/// when g++ is missing and `SIMDNLP_SKIP_GXX` is set.
fn emu() -> Option<Emu> {
    match Emu::new() {
        Ok(emu) => Some(emu),
        Err(e @ DeviceError::Unavailable { .. }) => {
            assert!(
                std::env::var_os("SIMDNLP_SKIP_GXX").is_some(),
                "g++ is required for this test: {e}"
            );
            eprintln!("g++ not available ({e}); skipping");
            None
        }
        Err(e) => panic!("the interior-point kernels do not compile: {e}"),
    }
}

/// A point near the start and multipliers that vary per row.
fn point(m: &Model) -> (Vec<f64>, Vec<f64>) {
    let meta = m.meta();
    let x = meta
        .x0
        .iter()
        .enumerate()
        .map(|(i, v)| v + 0.01 * ((i % 7) as f64 - 3.0))
        .collect();
    let y = (0..meta.ncon).map(|i| 0.3 + (i % 5) as f64 * 0.2).collect();
    (x, y)
}

/// Objective, gradient, constraints, Jacobian and Hessian values from the CPU callbacks.
fn cpu_outputs(m: &Model, x: &[f64], y: &[f64]) -> Vec<Vec<f64>> {
    let meta = m.meta();
    let mut g = vec![0.0; meta.nvar];
    let mut c = vec![0.0; meta.ncon];
    let mut j = vec![0.0; meta.nnzj];
    let mut h = vec![0.0; meta.nnzh];
    m.grad(x, &mut g);
    m.cons(x, &mut c);
    m.jac_coord(x, &mut j);
    m.hess_coord(x, y, 0.8, &mut h);
    vec![vec![m.obj(x)], g, c, j, h]
}

/// The same outputs from the device model.
fn device_outputs(
    d: &Emu,
    dm: &mut DeviceModel<'_, Emu>,
    m: &Model,
    x: &[f64],
    y: &[f64],
) -> Vec<Vec<f64>> {
    let meta = m.meta();
    let xd = d.vector_from_host(x).unwrap();
    let yd = d.vector_from_host(y).unwrap();
    let mut outs = vec![vec![dm.obj(&xd).unwrap()]];
    let host = |v: &Vec<f64>| {
        let mut out = vec![0.0; v.len()];
        d.to_host(v, &mut out).unwrap();
        out
    };
    let mut g = d.zeros(meta.nvar).unwrap();
    let mut c = d.zeros(meta.ncon).unwrap();
    let mut j = d.zeros(meta.nnzj).unwrap();
    let mut h = d.zeros(meta.nnzh).unwrap();
    dm.grad(&xd, &mut g).unwrap();
    dm.cons(&xd, &mut c).unwrap();
    dm.jac_coord(&xd, &mut j).unwrap();
    dm.hess_coord(&xd, &yd, 0.8, &mut h).unwrap();
    for v in [&g, &c, &j, &h] {
        outs.push(host(v));
    }
    outs
}

const PARTS: [&str; 5] = ["obj", "grad", "cons", "jac", "hess"];

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || a == b || (a.is_nan() && b.is_nan())
}

/// Build the device model (one compile), evaluate and compare bitwise; returns the
/// number of compared entries.
fn check(emu: &Emu, label: &str, mut model: Model) -> usize {
    model.set_evaluator(Evaluator::Interp);
    let started = Instant::now();
    let mut dm = DeviceModel::new(&model, emu).unwrap_or_else(|e| panic!("{label}: {e}"));
    let (x, y) = point(&model);
    let cpu = cpu_outputs(&model, &x, &y);
    let dev = device_outputs(emu, &mut dm, &model, &x, &y);
    let mut count = 0;
    for (part, (a, b)) in PARTS.iter().zip(cpu.iter().zip(&dev)) {
        assert_eq!(a.len(), b.len(), "{label}: {part} length");
        let nvar = model.meta().nvar as f64;
        for (i, (&u, &v)) in a.iter().zip(b).enumerate() {
            let close =
                *part == "obj" && (u - v).abs() <= (1e-12 + nvar * f64::EPSILON) * u.abs().max(1.0);
            assert!(
                same(u, v) || close,
                "{label}: {part}[{i}]: cpu {u:e} vs emu {v:e}"
            );
        }
        count += a.len();
    }
    println!(
        "{label}: {count} entries equal (bitwise but the objective; {:.2} s incl. compile)",
        started.elapsed().as_secs_f64()
    );
    count
}

#[test]
fn lv_at_n20() {
    let Some(emu) = emu() else { return };
    for &name in lv::LV_PROBLEMS {
        assert!(check(&emu, name, lv::build(name, 20).unwrap()) > 0);
    }
}

#[test]
fn cops_small() {
    let Some(emu) = emu() else { return };
    for p in cops::ALL {
        let size = p.presets()[0];
        assert!(check(&emu, p.name, p.build_at(size).unwrap()) > 0);
    }
}

#[test]
fn opf_bundled_cases() {
    let Some(emu) = emu() else { return };
    for case in [
        "pglib_opf_case3_lmbd",
        "pglib_opf_case5_pjm",
        "pglib_opf_case14_ieee",
        "pglib_opf_case89_pegase",
        "pglib_opf_case118_ieee",
    ] {
        let path = bundled_pglib_dir().join(format!("{case}.m"));
        assert!(check(&emu, case, acopf(&OpfData::read(path).unwrap()).unwrap()) > 0);
    }
}
