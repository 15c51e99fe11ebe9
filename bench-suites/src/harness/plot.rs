//! Per-instance plots (SVG or PNG, by the file extension) with plotters.
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

use super::report::{CallbackRecord, SolveRecord, fmt_time};

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

/// Draws a log-scale line chart of `series` (name, one value per instance) over the
/// instances `labels` into `path` (`.svg` or `.png`).
pub fn line_chart(
    path: &Path,
    title: &str,
    y_desc: &str,
    labels: &[String],
    series: &[(&str, Vec<f64>)],
) -> Result<(), String> {
    ensure_font()?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let width = (200 + 40 * labels.len() as u32).clamp(800, 2400);
    let size = (width, 600);
    match ext.as_deref() {
        Some("svg") => draw(
            SVGBackend::new(path, size).into_drawing_area(),
            title,
            y_desc,
            labels,
            series,
        ),
        Some("png") => draw(
            BitMapBackend::new(path, size).into_drawing_area(),
            title,
            y_desc,
            labels,
            series,
        ),
        _ => Err(format!(
            "{}: plot file must end in .svg or .png",
            path.display()
        )),
    }
}

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    title: &str,
    y_desc: &str,
    labels: &[String],
    series: &[(&str, Vec<f64>)],
) -> Result<(), String> {
    let e = |x: DrawingAreaErrorKind<DB::ErrorType>| x.to_string();
    root.fill(&WHITE).map_err(e)?;
    let n = labels.len().max(1) as i32;
    let vals = series.iter().flat_map(|(_, v)| v.iter().copied());
    let pos: Vec<f64> = vals.filter(|v| v.is_finite() && *v > 0.0).collect();
    let lo = pos.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = pos.iter().copied().fold(0.0, f64::max);
    let (lo, hi) = if pos.is_empty() {
        (1e-9, 1.0)
    } else {
        (lo / 2.0, hi * 2.0)
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(110)
        .y_label_area_size(80)
        .build_cartesian_2d((0..n - 1).into_segmented(), (lo..hi).log_scale())
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_labels(labels.len().max(1))
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
                labels.get(*i as usize).cloned().unwrap_or_default()
            }
            SegmentValue::Last => String::new(),
        })
        .x_label_style(
            ("sans-serif", 12)
                .into_font()
                .transform(FontTransform::Rotate90),
        )
        .y_desc(y_desc)
        .y_label_formatter(&|v| fmt_time(*v))
        .draw()
        .map_err(e)?;
    for (k, (name, v)) in series.iter().enumerate() {
        let color = Palette99::pick(k).to_rgba();
        let pts: Vec<(SegmentValue<i32>, f64)> = v
            .iter()
            .enumerate()
            .filter(|(_, y)| y.is_finite() && **y > 0.0)
            .map(|(i, y)| (SegmentValue::CenterOf(i as i32), *y))
            .collect();
        chart
            .draw_series(LineSeries::new(pts, color.stroke_width(2)).point_size(3))
            .map_err(e)?
            .label(*name)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(e)?;
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
    line_chart(
        path,
        "callback time per call",
        "seconds per call",
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
    line_chart(path, "wall time", "seconds", &labels, &series)
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
