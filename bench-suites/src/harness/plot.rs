//! Per-instance plots (SVG or PNG, by the file extension) with plotters: a dot chart with
//! one row per instance and one marker shape per series on a log-scale time axis, titled
//! with the suite and the size class.
//!
//! plotters is built without system libraries (no fontconfig/freetype): text goes
//! through `ab_glyph`, so a TrueType font is loaded at run time from
//! `$SIMDNLP_PLOT_FONT` or the usual system locations (DejaVu Sans, Liberation Sans,
//! Arial, Helvetica). Without a font, plotting fails with a message saying so — for SVG
//! and PNG alike, since plotters lays text out with the font in both.

use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::SizeClass;
use super::report::{CallbackRecord, SolveRecord};

/// Environment variable naming a `.ttf`/`.otf` font for plot text.
pub const PLOT_FONT_ENV: &str = "SIMDNLP_PLOT_FONT";

const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu-sans-fonts/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation-sans/LiberationSans-Regular.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// Registers a TrueType font as plotters' `sans-serif` (once per process).
fn ensure_font() -> Result<(), String> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        let mut tried = Vec::new();
        let env = std::env::var(PLOT_FONT_ENV).ok();
        for p in env.iter().map(String::as_str).chain(FONT_CANDIDATES.iter().copied()) {
            tried.push(p.to_string());
            if let Ok(bytes) = std::fs::read(p) {
                // Registered fonts must live for the whole process.
                let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
                {
                    return Ok(());
                }
            }
        }
        Err(format!(
            "no usable TrueType font for plot text (tried {}); set {PLOT_FONT_ENV}=/path/to/font.ttf",
            tried.join(", ")
        ))
    })
    .clone()
}

/// One row per instance, one marker per series: the instances are unrelated cases, so
/// nothing joins them. Names are written horizontally on the left; the value axis is
/// logarithmic, over whole decades, labelled at 1, 2 and 5 times each power of ten (powers
/// of ten only beyond three decades). Writes `path` (`.svg` or `.png`).
pub fn dot_chart(
    path: &Path,
    title: &str,
    x_desc: &str,
    labels: &[String],
    series: &[(&str, Vec<f64>)],
) -> Result<(), String> {
    ensure_font()?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let rows = labels.len().max(1) as u32;
    let size = (1200, (150 + 26 * rows).clamp(360, 6000));
    match ext.as_deref() {
        Some("svg") => draw(
            SVGBackend::new(path, size).into_drawing_area(),
            title,
            x_desc,
            labels,
            series,
        ),
        Some("png") => draw(
            BitMapBackend::new(path, size).into_drawing_area(),
            title,
            x_desc,
            labels,
            series,
        ),
        _ => Err(format!(
            "{}: plot file must end in .svg or .png",
            path.display()
        )),
    }
}

/// The whole decades `[10^a, 10^b]` around the finite positive `values` (`a < b`), or
/// `[1e-9, 1]` when there is none.
fn log_range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(a, b), v| (a.min(v), b.max(v)));
    if hi == 0.0 {
        return (1e-9, 1.0);
    }
    let a = lo.log10().floor();
    let b = hi.log10().ceil().max(a + 1.0);
    (10f64.powf(a), 10f64.powf(b))
}

/// The label of a grid value `v` (seconds) on a log axis spanning `decades` decades: 1, 2
/// and 5 times a power of ten get one (powers of ten only beyond five decades), others
/// none. Labels are short: `20µs`, `1ms`, `500ns`.
fn tick_label(v: f64, decades: f64) -> String {
    let mantissa = v / 10f64.powf(v.log10().floor());
    let near = |m: f64| (mantissa - m).abs() < 1e-6 || (mantissa - 10.0 * m).abs() < 1e-5;
    let shown = if decades > 5.0 {
        near(1.0)
    } else {
        near(1.0) || near(2.0) || near(5.0)
    };
    if !shown {
        return String::new();
    }
    let (scale, unit) = [(1e9, "ns"), (1e6, "µs"), (1e3, "ms"), (1.0, "s")]
        .into_iter()
        .find(|(scale, _)| v * scale < 999.5)
        .unwrap_or((1.0, "s"));
    let x = v * scale;
    if (x - x.round()).abs() <= 1e-6 * x {
        format!("{}{unit}", x.round())
    } else {
        format!("{x:.1}{unit}")
    }
}

/// The outline of series `k`'s marker, in pixels around its point: octagon, triangle,
/// square, diamond, inverted triangle, then again.
fn marker_shape(k: usize) -> Vec<(i32, i32)> {
    match k % 5 {
        0 => vec![
            (5, 2),
            (2, 5),
            (-2, 5),
            (-5, 2),
            (-5, -2),
            (-2, -5),
            (2, -5),
            (5, -2),
        ],
        1 => vec![(0, -6), (6, 5), (-6, 5)],
        2 => vec![(-4, -4), (4, -4), (4, 4), (-4, 4)],
        3 => vec![(0, -6), (6, 0), (0, 6), (-6, 0)],
        _ => vec![(0, 6), (6, -5), (-6, -5)],
    }
}

/// Width (pixels) of the legend column right of the plot.
const LEGEND_WIDTH: u32 = 130;

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    x_desc: &str,
    labels: &[String],
    series: &[(&str, Vec<f64>)],
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let n = labels.len().max(1) as i32;
    let (lo, hi) = log_range(series.iter().flat_map(|(_, v)| v.iter().copied()));
    let decades = (hi / lo).log10().round();
    // plotters starts the grid at the first power of ten not below the axis start, and
    // log10(1e-3) rounds to above −3: widen by a hair so both ends keep their tick
    let (lo, hi) = (lo * (1.0 - 1e-9), hi * (1.0 + 1e-9));
    // the longest name decides the width of the name column (about 7 px per character)
    let widest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u32;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(14)
        .x_label_area_size(50)
        .y_label_area_size((16 + 7 * widest).clamp(60, 420))
        // room for the legend, right of the plot
        .margin_right(LEGEND_WIDTH)
        .build_cartesian_2d((lo..hi).log_scale(), (0..n - 1).into_segmented())
        .map_err(e)?;
    // row i (from the top) is instance i
    let row = |i: usize| SegmentValue::CenterOf(n - 1 - i as i32);
    chart
        .configure_mesh()
        // grid lines at 1..9 times each power of ten, labels per `tick_label`
        .x_labels(10 * decades as usize + 1)
        .x_max_light_lines(0)
        .y_max_light_lines(1)
        .x_label_formatter(&|v| tick_label(*v, decades))
        .x_desc(x_desc)
        .y_labels(labels.len().max(1))
        .y_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => labels
                .get((n - 1 - *i) as usize)
                .cloned()
                .unwrap_or_default(),
            SegmentValue::Last => String::new(),
        })
        .label_style(("sans-serif", 13))
        .bold_line_style(RGBColor(225, 225, 225))
        .draw()
        .map_err(e)?;
    let (plot_x, plot_y) = chart.plotting_area().get_pixel_range();
    for (k, (name, v)) in series.iter().enumerate() {
        let color = Palette99::pick(k).to_rgba();
        let points: Vec<(f64, SegmentValue<i32>)> = v
            .iter()
            .enumerate()
            .filter(|(_, x)| x.is_finite() && **x > 0.0)
            .map(|(i, x)| (*x, row(i)))
            .collect();
        let (shape, style) = (marker_shape(k), color.filled());
        chart
            .draw_series(
                points
                    .into_iter()
                    .map(|p| EmptyElement::at(p) + Polygon::new(shape.clone(), style)),
            )
            .map_err(e)?;
        // the legend entry, outside the plot so that it hides no marker
        let at = (plot_x.end + 24, plot_y.start + 12 + 22 * k as i32);
        root.draw(&(EmptyElement::at(at) + Polygon::new(shape, style)))
            .map_err(e)?;
        let text =
            TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        root.draw(&Text::new(name.to_string(), (at.0 + 14, at.1), text))
            .map_err(e)?;
    }
    root.present().map_err(e)?;
    Ok(())
}

fn label(instance: &str, param: &str) -> String {
    if param.is_empty() {
        instance.to_string()
    } else {
        format!("{instance}:{param}")
    }
}

/// `what — lv suite, small` (suites and size classes in order of appearance, joined by
/// `+` when the records mix them).
fn title<'a>(
    what: &str,
    suites: impl Iterator<Item = &'a str>,
    sizes: impl Iterator<Item = SizeClass>,
) -> String {
    let mut s: Vec<&str> = Vec::new();
    for x in suites {
        if !s.contains(&x) {
            s.push(x);
        }
    }
    let mut z: Vec<SizeClass> = Vec::new();
    for x in sizes {
        if !z.contains(&x) {
            z.push(x);
        }
    }
    let sizes: Vec<&str> = z.iter().map(|c| c.as_str()).collect();
    let suite_word = if s.len() > 1 { "suites" } else { "suite" };
    format!(
        "{what} — {} {suite_word}, {}",
        s.join(" + "),
        sizes.join(" + ")
    )
}

/// Callbacks mode: seconds per call of each callback, per instance.
pub fn plot_callbacks(path: &Path, recs: &[CallbackRecord]) -> Result<(), String> {
    let mixed = recs.iter().any(|r| r.backend != recs[0].backend);
    let labels: Vec<String> = recs
        .iter()
        .map(|r| {
            let l = label(&r.instance, &r.param);
            if mixed {
                format!("{l} ({})", r.backend)
            } else {
                l
            }
        })
        .collect();
    let col = |f: fn(&CallbackRecord) -> f64| recs.iter().map(f).collect::<Vec<_>>();
    let series = [
        ("obj", col(|r| r.obj_s)),
        ("cons", col(|r| r.cons_s)),
        ("grad", col(|r| r.grad_s)),
        ("jac_coord", col(|r| r.jac_s)),
        ("hess_coord", col(|r| r.hess_s)),
    ];
    let title = title(
        "callback time per call",
        recs.iter().map(|r| r.suite.as_str()),
        recs.iter().map(|r| r.size),
    );
    dot_chart(
        path,
        &title,
        "seconds per call (log scale)",
        &labels,
        &series,
    )
}

/// Solve mode: build and solve wall time per instance.
pub fn plot_solve(path: &Path, recs: &[SolveRecord]) -> Result<(), String> {
    let labels: Vec<String> = recs.iter().map(|r| label(&r.instance, &r.param)).collect();
    let series = [
        ("solve", recs.iter().map(|r| r.solve_s).collect()),
        ("build", recs.iter().map(|r| r.build_s).collect()),
    ];
    let title = title(
        "wall time",
        recs.iter().map(|r| r.suite.as_str()),
        recs.iter().map(|r| r.size),
    );
    dot_chart(path, &title, "seconds (log scale)", &labels, &series)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::SizeClass;
    use crate::harness::report::CallbackRecord;
    use crate::harness::stats::CallbackWeights;

    fn rec(name: &str, t: f64) -> CallbackRecord {
        let mut r = CallbackRecord {
            suite: "lv".into(),
            instance: name.into(),
            param: "20".into(),
            size: SizeClass::Small,
            backend: "handcoded".into(),
            threads: 1,
            nvar: 1,
            ncon: 1,
            nnzj: 1,
            nnzh: 1,
            build_s: 0.0,
            obj_s: 0.0,
            cons_s: 0.0,
            grad_s: 0.0,
            jac_s: 0.0,
            hess_s: 0.0,
            composite_s: 0.0,
            evaluator: String::new(),
            jit_patterns: 0,
            jit_ms_per_pattern: 0.0,
            device: "cpu".into(),
            device_name: String::new(),
        };
        let w = CallbackWeights {
            obj: t,
            cons: 2.0 * t,
            grad: 3.0 * t,
            jac: 4.0 * t,
            hess: 5.0 * t,
        };
        r.set_times(&w);
        r
    }

    #[test]
    fn log_axis_spans_whole_decades_and_labels_1_2_5() {
        assert_eq!(
            log_range([3e-5, 4e-4, f64::NAN, 0.0].into_iter()),
            (1e-5, 1e-3)
        );
        // a single value still gets a decade
        let (lo, hi) = log_range([1e-3].into_iter());
        assert!((lo - 1e-3).abs() < 1e-18 && (hi - 1e-2).abs() < 1e-17);
        assert_eq!(log_range(std::iter::empty()), (1e-9, 1.0));
        let labelled: Vec<String> = [1e-5, 2e-5, 3e-5, 5e-5, 7e-5, 1e-4]
            .iter()
            .map(|&v| tick_label(v, 2.0))
            .collect();
        assert_eq!(labelled, ["10µs", "20µs", "", "50µs", "", "100µs"]);
        assert_eq!(tick_label(5e-10, 2.0), "0.5ns");
        assert_eq!(tick_label(1.0, 2.0), "1s");
        assert_eq!(tick_label(200.0, 2.0), "200s");
        // beyond five decades only the powers of ten
        assert_eq!(tick_label(2e-5, 6.0), "");
        assert_eq!(tick_label(1e-2, 6.0), "10ms");
    }

    #[test]
    fn titles_name_suite_and_size() {
        assert_eq!(
            title(
                "wall time",
                ["opf", "opf"].into_iter(),
                [SizeClass::Small].into_iter()
            ),
            "wall time — opf suite, small"
        );
        assert_eq!(
            title(
                "t",
                ["lv", "cops"].into_iter(),
                [SizeClass::Small, SizeClass::Medium, SizeClass::Small].into_iter()
            ),
            "t — lv + cops suites, small + medium"
        );
    }

    #[test]
    fn writes_svg_and_png_or_says_why() {
        let recs = [rec("a", 1e-6), rec("b", 1e-4)];
        let dir = std::env::temp_dir();
        let pid = std::process::id();
        for ext in ["svg", "png"] {
            let p = dir.join(format!("simdnlp-bench-plot-{pid}.{ext}"));
            match plot_callbacks(&p, &recs) {
                Ok(()) => {
                    let bytes = std::fs::read(&p).unwrap();
                    assert!(bytes.len() > 100);
                    if ext == "svg" {
                        assert!(String::from_utf8_lossy(&bytes).contains("<svg"));
                    } else {
                        assert_eq!(&bytes[1..4], b"PNG");
                    }
                    let _ = std::fs::remove_file(&p);
                }
                Err(msg) => assert!(msg.contains(PLOT_FONT_ENV), "{msg}"),
            }
        }
        let bad = plot_callbacks(Path::new("x.pdf"), &recs).unwrap_err();
        assert!(bad.contains(".svg or .png") || bad.contains(PLOT_FONT_ENV));
    }
}
