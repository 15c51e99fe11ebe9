//! A [`Model`] evaluated on device vectors with its emitted CUDA C kernels.
//!
//! [`DeviceModel::new`] emits, for every pattern `i` of the model in declaration order,
//! the value, gradient and Hessian kernels `sn_p{i}_v`, `sn_p{i}_g` and `sn_p{i}_h`
//! ([`simdnlp_ad::cuda::emit`]) into one module source and loads it on the device; the
//! data columns and `θ` go to device buffers once. Per-point outputs are then placed
//! exactly as the CPU callbacks of [`Model`] place them:
//! - objective: the value kernels of the objective patterns write one value per data point
//!   into one buffer, summed by the device's parallel two-pass reduction ([`simdnlp_device::Device::sum`]:
//!   the CPU's bits up to 32 terms, else within `(n − 1) ε Σ|terms|`);
//! - gradient: the gradient kernels write per-point slot derivatives, and a host-built
//!   [`SegmentPlan`] (target = variable, entries in pattern/point/slot order) sums them
//!   into `g`, in the order of the CPU's sequential scatter-add;
//! - constraints: base rows and augmentations write per-point values into one buffer, and
//!   a plan (target = row: the base value first, then the augmentations in declaration
//!   order) sums them into `c`;
//! - Jacobian and Hessian values: each pattern's kernel writes its own range of the COO
//!   value vector directly (same layout as [`NlpModel::jac_coord`] and
//!   [`NlpModel::hess_coord`]), except the Hessian kernels of a group's members (whose
//!   terms share one summed block in the layout): they write into a buffer of terms that
//!   a plan (target = entry of the block, the members' terms in member order) sums, and
//!   the sums are copied into the block. Hessian weights are `σ` (objective), `y[row0..]`
//!   (base rows, read in place) or `y` gathered by row (augmentations), and the entries
//!   the CPU path doubles are doubled by a gather and a scatter-add.
//!
//! No atomics: every sum is a segmented gather in a fixed order. The segmented sums start
//! from `+0`, so a sum whose terms are all `-0.0` gives `+0.0` where the CPU keeps `-0.0`
//! (equal as numbers).
//!
//! After [`Model::set_value`](crate::Model::set_value) changes a parameter, call
//! [`DeviceModel::refresh_theta`] to re-upload `θ`.

use crate::error::ModelError;
use crate::model::{Model, Rows};
use crate::nlp::NlpModel;
use simdnlp_ad::cuda::{Callback, emit};
use simdnlp_device::{DeviceError, KernelArg, KernelId, KernelRuntime, SegmentPlan, Segments};

/// Bytes per `f64` entry (device address arithmetic for sub-ranges).
const F64_BYTES: u64 = 8;

/// Which weights a pattern's Hessian kernel reads.
enum HessWeights<V, I> {
    /// The objective weight `σ`, filled into the vector before each launch.
    Objective(V),
    /// `y[row0 + k]`, read in place.
    Base { row0: usize },
    /// `y[rows[k]]`, gathered into the vector before each launch.
    Augment { rows_on_device: I, weights: V },
}

/// Device buffers and kernels of one pattern.
struct DevicePattern<D: KernelRuntime> {
    /// Number of data points.
    len: usize,
    value: KernelId,
    gradient: KernelId,
    hessian: KernelId,
    /// The real data columns (each `len` entries); kept alive for `reals`.
    _real_columns: Vec<D::Vector>,
    /// The integer data columns (each `len` words); kept alive for `ints`.
    _int_columns: Vec<D::Words>,
    /// Table of the real columns' addresses (the kernel's `reals`).
    reals: D::Words,
    /// Table of the integer columns' addresses (the kernel's `ints`).
    ints: D::Words,
}

/// A [`Model<f64>`] evaluated on a device with its emitted kernels (see the module
/// documentation). Borrows the device; holds its own copies of the model's data, so the
/// model may change afterwards (re-upload `θ` with [`DeviceModel::refresh_theta`]).
///
/// ```no_run
/// use simdnlp_device::{Device, Emu};
/// use simdnlp_modeling::{DeviceModel, ModelBuilder};
///
/// let mut m = ModelBuilder::new();
/// let x = m.var(3).start(1.0);
/// m.minimize(0..2, |i| 100.0 * (x.at(i + 1) - x.at(i).powi(2)).powi(2));
/// let model = m.build()?;
/// let emu = Emu::new()?; // needs g++
/// let mut on_device = DeviceModel::new(&model, &emu)?;
/// let xd = emu.vector_from_host(&[1.0, 1.0, 1.0])?;
/// let mut g = emu.zeros(3)?;
/// assert_eq!(on_device.obj(&xd)?, 0.0);
/// on_device.grad(&xd, &mut g)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct DeviceModel<'d, D: KernelRuntime> {
    device: &'d D,
    nvar: usize,
    ncon: usize,
    nnzj: usize,
    nnzh: usize,
    theta: D::Vector,
    pats: Vec<DevicePattern<D>>,
    /// Per-pattern Hessian weights, by index into `hess_pats`.
    hess_weights: Vec<HessWeights<D::Vector, D::Index>>,
    /// Per pattern of `hess_pats`: where its Hessian kernel writes (`true`: into
    /// `hess_terms` at the offset, else into the value vector).
    hess_out: Vec<(bool, usize)>,
    /// The weighted terms of the groups' members, summed into `hess_sums` by
    /// `hess_plan`; `hess_copies` puts each group's sums (start in `hess_sums`, start in
    /// the value vector, length) into its block.
    hess_terms: D::Vector,
    hess_sums: D::Vector,
    hess_plan: Segments<D::Index>,
    hess_copies: Vec<(usize, usize, usize)>,
    obj_pats: Vec<usize>,
    con_pats: Vec<usize>,
    hess_pats: Vec<usize>,
    jac_off: Vec<usize>,
    /// Offset of each objective pattern's values in `obj_values` and gradients in
    /// `grad_values`; of each base/augmentation pattern's values in `con_values`.
    obj_value_off: Vec<usize>,
    grad_off: Vec<usize>,
    con_value_pats: Vec<(usize, usize)>,
    /// Every objective term's value, summed by the device's parallel reduction.
    obj_values: D::Vector,
    grad_values: D::Vector,
    grad_plan: Segments<D::Index>,
    con_values: D::Vector,
    con_plan: Segments<D::Index>,
    doubled: D::Index,
    doubled_values: D::Vector,
    /// Whether `grad`, `cons`, `jac_coord` and `hess_coord` wait for their kernels.
    synchronize_each: bool,
}

/// The kernel names of pattern `i`.
fn kernel_name(i: usize, callback: &str) -> String {
    format!("sn_p{i}_{callback}")
}

/// The first user function the emitted `source` calls without a CUDA body (the emitter
/// defines each body under `#define SN_user_<name>_<order>`).
fn missing_user_function(source: &str) -> Option<String> {
    let bytes = source.as_bytes();
    let mut at = 0;
    while let Some(found) = source[at..].find("user_") {
        let start = at + found;
        at = start + 5;
        let boundary = start == 0 || {
            let c = bytes[start - 1];
            !(c.is_ascii_alphanumeric() || c == b'_')
        };
        if !boundary {
            continue;
        }
        let end = source[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(source.len(), |e| start + e);
        if source[end..].starts_with('(')
            && !source.contains(&format!("#define SN_{}\n", &source[start..end]))
        {
            return Some(source[start..end].to_string());
        }
    }
    None
}

fn device_err(e: DeviceError) -> ModelError {
    ModelError::Device(Box::new(e))
}

fn check_len(what: &'static str, expected: usize, got: usize) -> Result<(), ModelError> {
    if expected == got {
        Ok(())
    } else {
        Err(device_err(DeviceError::LengthMismatch {
            device: "model",
            what,
            expected,
            got,
        }))
    }
}

/// The CUDA C module of a model's kernels, as [`DeviceModel::new`] loads it: for every
/// pattern `i` in declaration order, the value, gradient and Hessian kernels `sn_p{i}_v`,
/// `sn_p{i}_g` and `sn_p{i}_h` ([`simdnlp_ad::cuda::emit`]). Any CUDA compiler takes it as
/// it is (NVRTC for the GPU, g++ through [`simdnlp_device::Emu`]'s shim).
///
/// # Errors
/// [`ModelError::MissingCudaBody`] when a user function has no CUDA body.
pub fn cuda_module_source(model: &Model<f64>) -> Result<String, ModelError> {
    let mut source = String::new();
    for (i, p) in model.pats.iter().enumerate() {
        for (callback, tag) in [
            (Callback::Value, "v"),
            (Callback::Gradient, "g"),
            (Callback::Hessian, "h"),
        ] {
            source.push_str(&emit(&p.pattern, callback, &kernel_name(i, tag)));
        }
    }
    match missing_user_function(&source) {
        Some(function) => Err(ModelError::MissingCudaBody { function }),
        None => Ok(source),
    }
}

impl<'d, D: KernelRuntime> DeviceModel<'d, D> {
    /// Emit and load the model's kernels, upload its data and `θ`, and build the segment
    /// plans.
    ///
    /// # Errors
    /// [`ModelError::MissingCudaBody`] when a user function has no CUDA body,
    /// [`ModelError::Device`] when compiling, allocating or uploading fails (a compile
    /// error carries the compiler's log).
    pub fn new(model: &Model<f64>, device: &'d D) -> Result<Self, ModelError> {
        let source = cuda_module_source(model)?;
        let module = device.load_module(&source).map_err(device_err)?;
        let kernel = |i: usize, tag: &str| device.kernel(module, &kernel_name(i, tag));
        let mut pats = Vec::with_capacity(model.pats.len());
        for (i, p) in model.pats.iter().enumerate() {
            let real_columns = p
                .cols
                .reals
                .iter()
                .map(|c| device.vector_from_host(c))
                .collect::<Result<Vec<_>, _>>()
                .map_err(device_err)?;
            let int_columns = p
                .cols
                .ints
                .iter()
                .map(|c| {
                    let words: Vec<u64> = c.iter().map(|&v| v as u64).collect();
                    device.words_from_host(&words)
                })
                .collect::<Result<Vec<_>, _>>()
                .map_err(device_err)?;
            let real_ptrs: Vec<u64> = real_columns.iter().map(|c| device.vector_ptr(c)).collect();
            let int_ptrs: Vec<u64> = int_columns.iter().map(|c| device.words_ptr(c)).collect();
            pats.push(DevicePattern {
                len: p.len(),
                value: kernel(i, "v").map_err(device_err)?,
                gradient: kernel(i, "g").map_err(device_err)?,
                hessian: kernel(i, "h").map_err(device_err)?,
                reals: device.words_from_host(&real_ptrs).map_err(device_err)?,
                ints: device.words_from_host(&int_ptrs).map_err(device_err)?,
                _real_columns: real_columns,
                _int_columns: int_columns,
            });
        }
        let meta = model.meta();
        let (nvar, ncon) = (meta.nvar, meta.ncon);

        // objective values and gradients, in pattern order
        let (mut obj_value_off, mut grad_off) = (Vec::new(), Vec::new());
        let (mut nobj, mut ngrad) = (0, 0);
        let (mut grad_target, mut grad_entry) = (Vec::new(), Vec::new());
        for &p in &model.obj_pats {
            let cp = &model.pats[p];
            obj_value_off.push(nobj);
            grad_off.push(ngrad);
            for (e, &g) in cp.globals.iter().enumerate() {
                grad_target.push(g);
                grad_entry.push(ngrad + e);
            }
            nobj += cp.len();
            ngrad += cp.len() * cp.nslots;
        }
        let grad_plan =
            SegmentPlan::new(nvar, &grad_target, &grad_entry, &grad_entry).map_err(device_err)?;

        // constraint values: base rows first, then augmentations, each in pattern order
        let mut con_value_pats = Vec::new();
        let (mut ncv, mut con_target, mut con_entry) = (0, Vec::new(), Vec::new());
        for &p in model.base_pats.iter().chain(&model.aug_pats) {
            let cp = &model.pats[p];
            con_value_pats.push((p, ncv));
            for k in 0..cp.len() {
                con_target.push(cp.row(k));
                con_entry.push(ncv + k);
            }
            ncv += cp.len();
        }
        let con_plan =
            SegmentPlan::new(ncon, &con_target, &con_entry, &con_entry).map_err(device_err)?;

        let mut hess_weights = Vec::with_capacity(model.hess_pats.len());
        for &p in &model.hess_pats {
            let cp = &model.pats[p];
            hess_weights.push(match &cp.rows {
                Rows::Objective => {
                    HessWeights::Objective(device.zeros(cp.len()).map_err(device_err)?)
                }
                Rows::Base { row0 } => HessWeights::Base { row0: *row0 },
                Rows::Augment { rows, .. } => HessWeights::Augment {
                    rows_on_device: device.index_from_host(rows).map_err(device_err)?,
                    weights: device.zeros(cp.len()).map_err(device_err)?,
                },
            });
        }
        // the groups' Hessian blocks: members' terms → plan → sums → copied into the block
        let mut hess_out = vec![(false, 0); model.pats.len()];
        for &p in &model.hess_pats {
            hess_out[p] = (false, model.pats[p].hess_off);
        }
        let (mut nterms, mut nsums) = (0, 0);
        let (mut sum_target, mut sum_entry, mut hess_copies) = (Vec::new(), Vec::new(), Vec::new());
        for block in model.hess_blocks.iter().filter(|b| b.group.is_some()) {
            let step = block.step();
            for (&p, entry_of) in block.pats.iter().zip(&block.entry_of) {
                let nh = model.pats[p].nhess;
                hess_out[p] = (true, nterms);
                for k in 0..block.len {
                    for (h, &e) in entry_of.iter().enumerate() {
                        sum_target.push(nsums + k * step + e as usize);
                        sum_entry.push(nterms + k * nh + h);
                    }
                }
                nterms += block.len * nh;
            }
            hess_copies.push((nsums, block.off, block.len * step));
            nsums += block.len * step;
        }
        let hess_plan =
            SegmentPlan::new(nsums, &sum_target, &sum_entry, &sum_entry).map_err(device_err)?;
        let upload = |plan: &SegmentPlan| device.segments(plan).map_err(device_err);
        Ok(Self {
            device,
            nvar,
            ncon,
            nnzj: meta.nnzj,
            nnzh: meta.nnzh,
            theta: device.vector_from_host(&model.theta).map_err(device_err)?,
            pats,
            hess_weights,
            hess_out: model.hess_pats.iter().map(|&p| hess_out[p]).collect(),
            hess_terms: device.zeros(nterms).map_err(device_err)?,
            hess_sums: device.zeros(nsums).map_err(device_err)?,
            hess_plan: upload(&hess_plan)?,
            hess_copies,
            obj_pats: model.obj_pats.clone(),
            con_pats: model.con_pats.clone(),
            hess_pats: model.hess_pats.clone(),
            jac_off: model.pats.iter().map(|p| p.jac_off).collect(),
            obj_value_off,
            grad_off,
            con_value_pats,
            obj_values: device.zeros(nobj).map_err(device_err)?,
            grad_values: device.zeros(ngrad).map_err(device_err)?,
            grad_plan: upload(&grad_plan)?,
            con_values: device.zeros(ncv).map_err(device_err)?,
            con_plan: upload(&con_plan)?,
            doubled: device
                .index_from_host(&model.hess_double)
                .map_err(device_err)?,
            doubled_values: device.zeros(model.hess_double.len()).map_err(device_err)?,
            synchronize_each: true,
        })
    }
}

impl<D: KernelRuntime> DeviceModel<'_, D> {
    /// The device the model runs on.
    pub fn device(&self) -> &D {
        self.device
    }

    /// Whether `grad`, `cons`, `jac_coord` and `hess_coord` call
    /// [`Device::synchronize`](simdnlp_device::Device::synchronize) before returning
    /// (`true`, the default: their launch failures are their errors). With `false` they
    /// only queue their kernels, and a failure is reported by the device's next
    /// synchronize: for timing back-to-back launches on an asynchronous device. `obj`
    /// always waits (it copies the value to the host).
    pub fn set_synchronize_each(&mut self, each_call: bool) {
        self.synchronize_each = each_call;
    }

    /// Wait for the queued kernels when [`DeviceModel::set_synchronize_each`] says so.
    fn finish(&self) -> Result<(), ModelError> {
        if self.synchronize_each {
            self.device.synchronize().map_err(device_err)
        } else {
            Ok(())
        }
    }

    /// Re-upload `θ` from `model` (after [`Model::set_value`](crate::Model::set_value));
    /// `model` must be the model this one was built from (same parameter count).
    ///
    /// # Errors
    /// [`ModelError::Device`] with a length mismatch when `model` has another number of
    /// parameters, or a transfer failure.
    pub fn refresh_theta(&mut self, model: &Model<f64>) -> Result<(), ModelError> {
        self.device
            .copy_from_host(&mut self.theta, &model.theta)
            .map_err(device_err)
    }

    /// Launch kernel `kernel` of pattern `pat` at `x`, writing from address `out`.
    ///
    /// # Safety
    /// `x` has `nvar` entries; `out` is the address of at least `len · step` writable
    /// entries of a live device buffer (`step` = 1, the slots or the Hessian pairs of the
    /// pattern for the value, gradient or Hessian kernel); `weights` is `0` or the address
    /// of at least `len` entries.
    unsafe fn launch(
        &self,
        pat: usize,
        kernel: KernelId,
        x: &D::Vector,
        weights: u64,
        out: u64,
    ) -> Result<(), ModelError> {
        let d = self.device;
        let p = &self.pats[pat];
        let args = [
            KernelArg::I64(p.len as i64),
            KernelArg::Ptr(d.vector_ptr(x)),
            KernelArg::I64(d.len(x) as i64),
            KernelArg::Ptr(d.vector_ptr(&self.theta)),
            KernelArg::I64(d.len(&self.theta) as i64),
            KernelArg::Ptr(d.words_ptr(&p.reals)),
            KernelArg::Ptr(d.words_ptr(&p.ints)),
            KernelArg::Ptr(weights),
            KernelArg::Ptr(out),
            KernelArg::Ptr(0),
        ];
        // SAFETY: the emitted kernel takes exactly these ten parameters; it reads `x` and
        // `θ` only below the lengths passed, data columns of `len` entries (kept alive by
        // `p`), `weights[k]` and writes `out[k·step + s]` for `k < len`, which the caller
        // guarantees; the null `values` is skipped by the gradient kernel.
        unsafe { d.launch(kernel, p.len, &args) }.map_err(device_err)
    }

    /// Address of entry `offset` of `v`, for a kernel that writes it.
    fn at(device: &D, v: &mut D::Vector, offset: usize) -> u64 {
        device.vector_ptr_mut(v) + offset as u64 * F64_BYTES
    }

    fn check_x(&self, x: &D::Vector) -> Result<(), ModelError> {
        check_len("x", self.nvar, self.device.len(x))
    }

    /// The objective `f(x)` (copies one number to the host).
    ///
    /// The terms are summed by [`simdnlp_device::Device::sum`] (a two-pass parallel reduction on a
    /// kernel device): the CPU callback's bits up to 32 terms, else within
    /// `(n − 1) ε Σ|terms|` of them.
    ///
    /// # Errors
    /// [`ModelError::Device`]: `x` of the wrong length, or a refused launch.
    pub fn obj(&mut self, x: &D::Vector) -> Result<f64, ModelError> {
        self.check_x(x)?;
        for (j, &p) in self.obj_pats.iter().enumerate() {
            let out = Self::at(self.device, &mut self.obj_values, self.obj_value_off[j]);
            // SAFETY: `obj_values` holds `len` values of this pattern from its offset.
            unsafe { self.launch(p, self.pats[p].value, x, 0, out) }?;
        }
        // a failed launch or reduction makes `f` NaN and is reported by the device's next
        // synchronize, as for the other callbacks
        Ok(self.device.sum(&self.obj_values))
    }

    /// The gradient `∇f(x)` into `g` (`nvar` entries).
    ///
    /// # Errors
    /// [`ModelError::Device`]: vectors of the wrong length, or a launch failure.
    pub fn grad(&mut self, x: &D::Vector, g: &mut D::Vector) -> Result<(), ModelError> {
        self.check_x(x)?;
        check_len("gradient", self.nvar, self.device.len(g))?;
        for (j, &p) in self.obj_pats.iter().enumerate() {
            let out = Self::at(self.device, &mut self.grad_values, self.grad_off[j]);
            // SAFETY: `grad_values` holds `len · nslots` entries of this pattern from its
            // offset.
            unsafe { self.launch(p, self.pats[p].gradient, x, 0, out) }?;
        }
        let d = self.device;
        d.seg_sum(1.0, &self.grad_values, &self.grad_plan, 0.0, g);
        self.finish()
    }

    /// The constraint values `c(x)` into `c` (`ncon` entries).
    ///
    /// Every entry is written: a row no pattern contributes to is `0` (the CPU callback
    /// leaves such a row as it was).
    ///
    /// # Errors
    /// [`ModelError::Device`]: vectors of the wrong length, or a launch failure.
    pub fn cons(&mut self, x: &D::Vector, c: &mut D::Vector) -> Result<(), ModelError> {
        self.check_x(x)?;
        check_len("constraints", self.ncon, self.device.len(c))?;
        for &(p, off) in &self.con_value_pats {
            let out = Self::at(self.device, &mut self.con_values, off);
            // SAFETY: `con_values` holds `len` values of this pattern from its offset.
            unsafe { self.launch(p, self.pats[p].value, x, 0, out) }?;
        }
        let d = self.device;
        d.seg_sum(1.0, &self.con_values, &self.con_plan, 0.0, c);
        self.finish()
    }

    /// The Jacobian values into `vals` (`nnzj` entries, the layout of
    /// [`NlpModel::jac_structure`]).
    ///
    /// # Errors
    /// [`ModelError::Device`]: vectors of the wrong length, or a launch failure.
    pub fn jac_coord(&mut self, x: &D::Vector, vals: &mut D::Vector) -> Result<(), ModelError> {
        self.check_x(x)?;
        check_len("Jacobian values", self.nnzj, self.device.len(vals))?;
        for &p in &self.con_pats {
            let out = Self::at(self.device, vals, self.jac_off[p]);
            // SAFETY: the pattern owns `len · nslots` entries of `vals` from `jac_off`.
            unsafe { self.launch(p, self.pats[p].gradient, x, 0, out) }?;
        }
        self.finish()
    }

    /// The values of the Lagrangian Hessian `σ ∇²f + Σ y_i ∇²c_i` into `vals` (`nnzh`
    /// entries, the layout of [`NlpModel::hess_structure`]).
    ///
    /// # Errors
    /// [`ModelError::Device`]: vectors of the wrong length, or a launch failure.
    pub fn hess_coord(
        &mut self,
        x: &D::Vector,
        y: &D::Vector,
        obj_weight: f64,
        vals: &mut D::Vector,
    ) -> Result<(), ModelError> {
        self.check_x(x)?;
        let d = self.device;
        check_len("multipliers", self.ncon, d.len(y))?;
        check_len("Hessian values", self.nnzh, d.len(vals))?;
        for j in 0..self.hess_pats.len() {
            let p = self.hess_pats[j];
            let weights = match &mut self.hess_weights[j] {
                HessWeights::Objective(w) => {
                    d.fill(w, obj_weight);
                    d.vector_ptr(w)
                }
                HessWeights::Base { row0 } => d.vector_ptr(y) + *row0 as u64 * F64_BYTES,
                HessWeights::Augment {
                    rows_on_device,
                    weights,
                } => {
                    d.gather(weights, y, rows_on_device);
                    d.vector_ptr(weights)
                }
            };
            let out = match self.hess_out[j] {
                (true, off) => Self::at(d, &mut self.hess_terms, off),
                (false, off) => Self::at(d, vals, off),
            };
            // SAFETY: the pattern owns `len · nhess` entries of `vals` from its offset (a
            // pattern of its own), or of `hess_terms` (a group's member); its weights are
            // `len` entries (its own vector, or `y[row0..row0 + len]`).
            unsafe { self.launch(p, self.pats[p].hessian, x, weights, out) }?;
        }
        if !self.hess_copies.is_empty() {
            d.seg_sum(
                1.0,
                &self.hess_terms,
                &self.hess_plan,
                0.0,
                &mut self.hess_sums,
            );
            for &(from, to, len) in &self.hess_copies {
                d.copy_range(vals, to, &self.hess_sums, from, len);
            }
        }
        if d.index_len(&self.doubled) > 0 {
            d.gather(&mut self.doubled_values, vals, &self.doubled);
            d.scatter_add(1.0, &self.doubled_values, &self.doubled, vals);
        }
        self.finish()
    }
}
