//! COPS builders marine, methanol, minsurf, pinene, polygon, robot, rocket, steering,
//! torsion: sizes (`n`, `m`) at the small presets against COPSBenchmark.jl's models,
//! derivatives against finite differences, and (with feature `solver`) solutions at the
//! reference sizes against the published optima (relative 1e-4).

use simdnlp_bench::cops::{self, CopsProblem, CopsSize};
use simdnlp_bench::testing::{FdOptions, check_derivatives};
use simdnlp_modeling::{Model, NlpMeta, NlpModel};

/// `s · f(x)` with the constraints unchanged: brings marine's objective (about 5e9 at the
/// start, observations of order 1e4) to a scale where the shared finite-difference check's
/// fixed step is not dominated by round-off. Derivative code paths are the model's own.
struct ObjScaled<'a>(&'a Model, f64);

impl NlpModel for ObjScaled<'_> {
    fn meta(&self) -> &NlpMeta {
        self.0.meta()
    }
    fn obj(&self, x: &[f64]) -> f64 {
        self.1 * self.0.obj(x)
    }
    fn grad(&self, x: &[f64], g: &mut [f64]) {
        self.0.grad(x, g);
        g.iter_mut().for_each(|v| *v *= self.1);
    }
    fn cons(&self, x: &[f64], c: &mut [f64]) {
        self.0.cons(x, c)
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.0.jac_structure(rows, cols)
    }
    fn jac_coord(&self, x: &[f64], vals: &mut [f64]) {
        self.0.jac_coord(x, vals)
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.0.hess_structure(rows, cols)
    }
    fn hess_coord(&self, x: &[f64], y: &[f64], w: f64, vals: &mut [f64]) {
        self.0.hess_coord(x, y, w * self.1, vals)
    }
    fn jprod(&self, x: &[f64], v: &[f64], jv: &mut [f64]) {
        self.0.jprod(x, v, jv)
    }
    fn jtprod(&self, x: &[f64], v: &[f64], jtv: &mut [f64]) {
        self.0.jtprod(x, v, jtv)
    }
    fn hprod(&self, x: &[f64], y: &[f64], w: f64, v: &[f64], hv: &mut [f64]) {
        self.0.hprod(x, y, w * self.1, v, hv)
    }
}

/// Builds `p` at `size` and checks `(n, m)` and the derivatives at a random point near
/// the start (perturbation `scale`).
fn check(p: &CopsProblem, size: CopsSize, n: usize, m: usize, scale: f64) -> Model {
    check_scaled(p, size, n, m, scale, 1.0)
}

/// [`check`] with the objective multiplied by `obj_scale` for the derivative check.
fn check_scaled(
    p: &CopsProblem,
    size: CopsSize,
    n: usize,
    m: usize,
    scale: f64,
    obj_scale: f64,
) -> Model {
    let model = p
        .build_at(size)
        .unwrap_or_else(|e| panic!("{} {size}: {e}", p.name));
    let meta = model.meta();
    assert_eq!((meta.nvar, meta.ncon), (n, m), "{} {size}: (n, m)", p.name);
    assert_eq!(meta.minimize, !p.maximize, "{}: sense", p.name);
    let opts = FdOptions {
        seed: 7,
        perturbation: scale,
        // the tolerance these tests have always used; at the default 2e-6 they pass with
        // methanol's Hessian closest (error 1.75e-6 · (1 + |entry|))
        rtol: 1e-5,
        ..FdOptions::default()
    };
    check_derivatives(
        &format!("{} {size}", p.name),
        &ObjScaled(&model, obj_scale),
        &opts,
    );
    model
}

#[test]
fn registry_lists_the_nine() {
    for name in [
        "marine", "methanol", "minsurf", "pinene", "polygon", "robot", "rocket", "steering",
        "torsion",
    ] {
        let p = cops::find(name).unwrap_or_else(|| panic!("{name} not in cops::ALL"));
        for s in p.presets().into_iter().chain([p.reference_size]) {
            assert_eq!(
                p.is_grid(),
                matches!(s, CopsSize::Grid(..)),
                "{name}: size kind"
            );
        }
        assert!(p.reference_objective.is_some());
    }
    assert_eq!(cops::ALL.len(), 18);
    assert!(
        cops::ALL.windows(2).all(|w| w[0].name < w[1].name),
        "ALL is alphabetical"
    );
}

#[test]
fn bad_sizes_are_errors() {
    assert!(cops::rocket::rocket(0).is_err());
    assert!(cops::polygon::polygon(3).is_err());
    assert!(cops::torsion::torsion(0, 5).is_err());
    assert!(cops::marine::marine(0).is_err());
    let p = cops::find("minsurf").unwrap();
    assert!(p.build_at(CopsSize::N(5)).is_err());
}

#[test]
fn rocket_small() {
    // n = 4(nh + 1) + 1, m = 3 nh + 4
    let model = check(&cops::rocket::PROBLEM, CopsSize::N(2), 13, 10, 0.01);
    assert_eq!(model.obj(&model.meta().x0), 1.0);
}

#[test]
fn robot_small() {
    // n = 9(nh + 1) + 1, m = 6 nh + 12
    check(&cops::robot::PROBLEM, CopsSize::N(2), 28, 24, 0.1);
}

#[test]
fn steering_small() {
    // n = 5(nh + 1) + 1, m = 4 nh + 8
    check(&cops::steering::PROBLEM, CopsSize::N(5), 31, 28, 0.1);
}

#[test]
fn polygon_small() {
    // N = 5: n = 2N, m = 2 + (N − 1) + N(N − 1)/2
    check(&cops::polygon::PROBLEM, CopsSize::N(10), 10, 16, 0.1);
}

#[test]
fn torsion_small() {
    // n = m = (nx + 2)(ny + 2)
    check(&cops::torsion::PROBLEM, CopsSize::Grid(5, 5), 49, 49, 0.1);
}

#[test]
fn minsurf_small() {
    // n = 7·7; m = 2·7 + 2·7 + 49 + obstacle (i, j ∈ 1..=5 → 25)
    check(&cops::minsurf::PROBLEM, CopsSize::Grid(5, 5), 49, 102, 0.1);
}

#[test]
fn marine_small() {
    // n = 15 + 32 nh, m = 32 nh − 8
    let model = check_scaled(&cops::marine::PROBLEM, CopsSize::N(2), 79, 56, 0.1, 1e-6);
    // start: v = uc = observation values, w = 0; at nh = 2 the fit uses the two interval
    // starts, so the error is Σ_j Σ_s (v0[itau_j, s] − z_js)²
    let x0 = &model.meta().x0;
    assert!(model.obj(x0) > 1e9);
}

#[test]
fn methanol_small() {
    // n = 5 + 30 nh, m = 30 nh
    check(&cops::methanol::PROBLEM, CopsSize::N(2), 65, 60, 0.0005);
}

#[test]
fn pinene_small() {
    // n = 5 + 50 nh, m = 50 nh
    check(&cops::pinene::PROBLEM, CopsSize::N(2), 105, 100, 0.1);
}

#[test]
fn collocation_grid_matches_copsbenchmark() {
    // pinene, nh = 4: h = 9105; itau = min(4, ⌊τ/h⌋ + 1)
    let tau = [
        1230.0, 3060.0, 4920.0, 7800.0, 10680.0, 15030.0, 22620.0, 36420.0,
    ];
    let z: Vec<f64> = (0..40).map(f64::from).collect();
    let g = cops::Collocation::new("pinene", 4, &tau, &z, &[100.0, 0.0, 0.0, 0.0, 0.0]).unwrap();
    assert_eq!(g.h, 9105.0);
    assert_eq!(g.itau, [1, 1, 1, 1, 2, 2, 3, 4]);
    // interval 1: initial states
    assert_eq!(&g.v0[0..5], &[100.0, 0.0, 0.0, 0.0, 0.0]);
    // observation j fills intervals itau[j-1]+1..=itau[j]: interval 2 ← obs 5, 3 ← obs 7
    assert_eq!(&g.v0[5..10], &z[20..25]);
    assert_eq!(&g.v0[10..15], &z[30..35]);
    assert_eq!(&g.v0[15..20], &z[35..40]);
    let rows = g.observation_rows();
    assert_eq!(rows[5 * 4], (2, 1, 10680.0 - 9105.0, 20.0));
}

#[cfg(feature = "solver")]
mod solve {
    use super::*;
    use simdnlp_solver::{Options, solve};

    fn solves_to_reference(p: &CopsProblem) {
        let model = p.build_at(p.reference_size).unwrap();
        let r = solve(&model, &Options::default()).unwrap();
        let want = p.reference_objective.unwrap();
        let rel = (r.objective - want).abs() / want.abs();
        println!(
            "{} {}: {:?}, objective {:.6e} (reference {want:e}, rel {rel:.1e}), {} iterations",
            p.name, p.reference_size, r.status, r.objective, r.iterations
        );
        assert!(
            r.status.is_success() && rel <= 1e-4,
            "{} {}: status {:?}, objective {} vs {want} (rel {rel:.2e}), {} iterations",
            p.name,
            p.reference_size,
            r.status,
            r.objective,
            r.iterations
        );
    }

    /// methanol:2 from COPSBenchmark.jl's start: from iteration 1 on, LDLᵀ meets the
    /// states' zero diagonals as zero pivots and hands each step to the paired LBLᵀ, whose
    /// verdict at δ_w = 0 is "singular" with and without δ_c; the multifrontal finds the
    /// inertia of that matrix correct at δ_c > 0 (65 positive, 60 negative). With
    /// `inertia_confirmation = multifrontal_before_delta_w` those paired verdicts are
    /// confirmed (the paired-LBLᵀ rule of `confirmation_asked`), the steps take no δ_w, and
    /// the solve follows Ipopt + MUMPS from the same start to its local solution
    /// 2.0574837e-2 (23 iterations, `bench-suites/peers/methanol_ipopt.py 2`); without the
    /// rule the paired LBLᵀ's verdicts stand, every step adds a δ_w and the solve ends at
    /// the other local solution 1.4018e-2. All of this with `zero_diagonal_ordering = no`:
    /// the default ordering places the states after a constraint, LDLᵀ then finds the exact
    /// inertia by itself and reaches Ipopt's solution without the paired LBLᵀ.
    #[test]
    fn paired_lblt_verdicts_are_confirmed_before_delta_w() {
        let model = cops::methanol::methanol(2).unwrap();
        let solved = |settings: &[(&str, &str)]| {
            let mut opts = Options::default();
            opts.set("print_level", "0").unwrap();
            for (name, value) in settings {
                opts.set(name, value).unwrap();
            }
            let r = solve(&model, &opts).unwrap();
            println!(
                "{settings:?}: {:?} {} iterations, objective {:.7e}, counts {:?}",
                r.status, r.iterations, r.objective, r.counts
            );
            assert!(r.status.is_success(), "{settings:?}: {:?}", r.status);
            r
        };
        let plain_ordering = |confirmation| {
            solved(&[
                ("zero_diagonal_ordering", "no"),
                ("inertia_confirmation", confirmation),
                ("confirmation_switch", "0"),
            ])
        };
        let plain = plain_ordering("none");
        let confirmed = plain_ordering("multifrontal_before_delta_w");
        let ipopt = 2.0574837e-2;
        assert!(
            (plain.objective - 1.4018e-2).abs() < 1e-5,
            "{}",
            plain.objective
        );
        assert!(confirmed.counts.paired_repeats > 0);
        assert!(confirmed.counts.inertia_confirmed > 0);
        assert!(
            (confirmed.objective - ipopt).abs() < 1e-4 * ipopt,
            "{} (Ipopt + MUMPS: {ipopt})",
            confirmed.objective
        );
        let default = solved(&[]);
        assert_eq!(default.counts.paired_repeats, 0);
        assert!(
            (default.objective - ipopt).abs() < 1e-4 * ipopt,
            "{} (Ipopt + MUMPS: {ipopt})",
            default.objective
        );
    }

    #[test]
    fn marine() {
        solves_to_reference(&cops::marine::PROBLEM);
    }
    #[test]
    fn methanol() {
        solves_to_reference(&cops::methanol::PROBLEM);
    }
    #[test]
    fn minsurf() {
        solves_to_reference(&cops::minsurf::PROBLEM);
    }
    #[test]
    fn pinene() {
        solves_to_reference(&cops::pinene::PROBLEM);
    }
    #[test]
    fn polygon() {
        solves_to_reference(&cops::polygon::PROBLEM);
    }
    #[test]
    fn robot() {
        solves_to_reference(&cops::robot::PROBLEM);
    }
    #[test]
    fn rocket() {
        solves_to_reference(&cops::rocket::PROBLEM);
    }
    #[test]
    fn steering() {
        solves_to_reference(&cops::steering::PROBLEM);
    }
    #[test]
    fn torsion() {
        solves_to_reference(&cops::torsion::PROBLEM);
    }
}

/// COPS through the harness registry (`cops::register`): selection by size class
/// and by `NAME:SIZE`, reference objectives and builds.
mod registry_wiring {
    use simdnlp_bench::cops;
    use simdnlp_bench::harness::registry::{ModelSourceSel, Registry, SizeClass, Suite};

    #[test]
    fn selects_and_builds_cops_instances() {
        let mut r = Registry::new();
        cops::register(&mut r);
        let small = r
            .select(Suite::Cops, &[SizeClass::Small], &[], ModelSourceSel::Cpu)
            .unwrap();
        assert_eq!(small.len(), cops::ALL.len());
        let specs = [
            "rocket:400".parse().unwrap(),
            "torsion:50x50".parse().unwrap(),
        ];
        let inst = r
            .select(Suite::Cops, &[], &specs, ModelSourceSel::Auto)
            .unwrap();
        assert_eq!(inst[0].reference, Some(1.01283));
        assert_eq!(inst[1].reference, Some(-0.418087));
        assert_eq!(inst[0].build().unwrap().meta().nvar, 4 * 401 + 1);
        let bad = ["minsurf:7".parse().unwrap()];
        assert!(
            r.select(Suite::Cops, &[], &bad, ModelSourceSel::Auto)
                .is_err()
        );
    }
}
