//! Model evaluation on device vectors: the seam between the interior-point method and the
//! model.
//!
//! The algorithm evaluates the model through [`DeviceNlp`]: sizes, bounds and sparsity
//! structure stay on the host (setup), values are computed from and into vectors of the
//! device `D`. Two evaluators implement it directly:
//! - [`HostNlp`]: any [`NlpModel`] on a device whose buffers are host memory
//!   ([`HostBuffers`]: [`simdnlp_device::Cpu`] and [`simdnlp_device::Emu`]); the model's
//!   callbacks run on the vectors' host slices in place, without a copy, so on the CPU this
//!   is exactly the plain callback.
//! - [`KernelNlp`]: a pattern-based [`Model`] evaluated by its emitted CUDA C kernels
//!   ([`DeviceModel`]) on a device that runs kernels ([`KernelRuntime`]).
//!
//! The solver's wrappers (scaling, fixed variables, restoration: [`crate::models`]) are
//! [`DeviceNlp`]s over another [`DeviceNlp`], built from device kernels.
//!
//! # Lengths
//! `x` is read from the *first* `nvar` entries of its vector (the solver passes its primal
//! vector `w = (x, s)`); a gradient is written to the first `nvar` entries of `g`, and the
//! entries after them are left unspecified (the caller overwrites them). Constraint values,
//! multipliers and Jacobian/Hessian values have exactly `ncon`, `ncon`, `nnzj` and `nnzh`
//! entries.
//!
//! # Errors
//! A device failure (a kernel launch, a transfer) is a [`SolverError`]. A model that cannot
//! be evaluated at `x` is *not* an error: it writes NaN or ±∞, which the algorithm treats
//! as a rejected point.

use crate::result::SolverError;
use simdnlp_device::{Device, HostBuffers, KernelRuntime};
use simdnlp_modeling::{DeviceModel, Model, NlpMeta, NlpModel};
use std::cell::RefCell;

/// A nonlinear program evaluated on vectors of the device `D` (see the module
/// documentation for lengths and errors). Evaluation takes `&self`: evaluators keep their
/// scratch buffers behind cells, so wrappers can share the model they wrap. Callbacks
/// allocate nothing.
pub trait DeviceNlp<D: Device> {
    /// Sizes, bounds, starting point and sense (host memory).
    fn meta(&self) -> &NlpMeta<f64>;
    /// Jacobian sparsity, as [`NlpModel::jac_structure`] (setup, host memory).
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]);
    /// Lower-triangle Hessian sparsity, as [`NlpModel::hess_structure`] (setup, host
    /// memory).
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]);
    /// Objective `f(x)`.
    ///
    /// # Errors
    /// A device failure.
    fn obj(&self, x: &D::Vector) -> Result<f64, SolverError>;
    /// Objective gradient into the first `nvar` entries of `g`.
    ///
    /// # Errors
    /// A device failure.
    fn grad(&self, x: &D::Vector, g: &mut D::Vector) -> Result<(), SolverError>;
    /// Constraint values `c(x)` into `c` (`ncon` entries).
    ///
    /// # Errors
    /// A device failure.
    fn cons(&self, x: &D::Vector, c: &mut D::Vector) -> Result<(), SolverError>;
    /// Jacobian values into `vals` (`nnzj` entries, the order of
    /// [`DeviceNlp::jac_structure`]).
    ///
    /// # Errors
    /// A device failure.
    fn jac_coord(&self, x: &D::Vector, vals: &mut D::Vector) -> Result<(), SolverError>;
    /// Values of `obj_weight ∇²f(x) + Σ y_j ∇²c_j(x)` into `vals` (`nnzh` entries, the
    /// order of [`DeviceNlp::hess_structure`]).
    ///
    /// # Errors
    /// A device failure.
    fn hess_coord(
        &self,
        x: &D::Vector,
        y: &D::Vector,
        obj_weight: f64,
        vals: &mut D::Vector,
    ) -> Result<(), SolverError>;
}

/// Any [`NlpModel`] on a device whose vectors are host memory: its callbacks run on the
/// vectors' host slices in place (no copies, no synchronization: both host-memory devices
/// finish a kernel before it returns).
pub struct HostNlp<'a, D: HostBuffers> {
    device: &'a D,
    model: &'a dyn NlpModel,
}

impl<'a, D: HostBuffers> HostNlp<'a, D> {
    /// `model` evaluated on the host slices of `device`'s vectors.
    pub fn new(device: &'a D, model: &'a dyn NlpModel) -> Self {
        Self { device, model }
    }
}

impl<D: HostBuffers> DeviceNlp<D> for HostNlp<'_, D> {
    fn meta(&self) -> &NlpMeta<f64> {
        self.model.meta()
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.model.jac_structure(rows, cols)
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.model.hess_structure(rows, cols)
    }
    fn obj(&self, x: &D::Vector) -> Result<f64, SolverError> {
        let n = self.model.meta().nvar;
        Ok(self.model.obj(&self.device.host(x)[..n]))
    }
    fn grad(&self, x: &D::Vector, g: &mut D::Vector) -> Result<(), SolverError> {
        let n = self.model.meta().nvar;
        let g = &mut self.device.host_mut(g)[..n];
        self.model.grad(&self.device.host(x)[..n], g);
        Ok(())
    }
    fn cons(&self, x: &D::Vector, c: &mut D::Vector) -> Result<(), SolverError> {
        let n = self.model.meta().nvar;
        let c = self.device.host_mut(c);
        self.model.cons(&self.device.host(x)[..n], c);
        Ok(())
    }
    fn jac_coord(&self, x: &D::Vector, vals: &mut D::Vector) -> Result<(), SolverError> {
        let n = self.model.meta().nvar;
        let vals = self.device.host_mut(vals);
        self.model.jac_coord(&self.device.host(x)[..n], vals);
        Ok(())
    }
    fn hess_coord(
        &self,
        x: &D::Vector,
        y: &D::Vector,
        obj_weight: f64,
        vals: &mut D::Vector,
    ) -> Result<(), SolverError> {
        let n = self.model.meta().nvar;
        let vals = self.device.host_mut(vals);
        let y = self.device.host(y);
        self.model
            .hess_coord(&self.device.host(x)[..n], y, obj_weight, vals);
        Ok(())
    }
}

/// Scratch vectors of a [`KernelNlp`]: the point and the gradient with exactly `nvar`
/// entries (the kernels take vectors of the model's length).
struct KernelScratch<'a, D: KernelRuntime> {
    model: DeviceModel<'a, D>,
    x: D::Vector,
    g: D::Vector,
}

/// A pattern-based [`Model`] evaluated by its emitted CUDA C kernels on the device
/// ([`DeviceModel`]): data columns and `θ` live in device buffers, sums are deterministic
/// segmented gathers. The point is copied into a buffer of `nvar` entries on the device
/// (one device copy per callback), the gradient out of one.
pub struct KernelNlp<'a, D: KernelRuntime> {
    device: &'a D,
    model: &'a Model<f64>,
    scratch: RefCell<KernelScratch<'a, D>>,
}

impl<'a, D: KernelRuntime> KernelNlp<'a, D> {
    /// Emit, compile (the device caches modules by source) and load `model`'s kernels on
    /// `device`, and upload its data and `θ`.
    ///
    /// # Errors
    /// [`SolverError::DeviceModel`] when a user function has no CUDA body or the kernels
    /// do not compile or load; [`SolverError::Device`] when an allocation fails.
    pub fn new(device: &'a D, model: &'a Model<f64>) -> Result<Self, SolverError> {
        let n = model.meta().nvar;
        let on_device = DeviceModel::new(model, device)?;
        Ok(Self {
            device,
            model,
            scratch: RefCell::new(KernelScratch {
                model: on_device,
                x: device.zeros(n)?,
                g: device.zeros(n)?,
            }),
        })
    }
}

impl<'a, D: KernelRuntime> KernelNlp<'a, D> {
    /// The scratch buffers with the point `x` (first `nvar` entries) copied in.
    fn at(&self, x: &D::Vector) -> std::cell::RefMut<'_, KernelScratch<'a, D>> {
        let mut scratch = self.scratch.borrow_mut();
        let n = self.model.meta().nvar;
        self.device.copy_range(&mut scratch.x, 0, x, 0, n);
        scratch
    }
}

impl<D: KernelRuntime> DeviceNlp<D> for KernelNlp<'_, D> {
    fn meta(&self) -> &NlpMeta<f64> {
        self.model.meta()
    }
    fn jac_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.model.jac_structure(rows, cols)
    }
    fn hess_structure(&self, rows: &mut [usize], cols: &mut [usize]) {
        self.model.hess_structure(rows, cols)
    }
    fn obj(&self, x: &D::Vector) -> Result<f64, SolverError> {
        let scratch = &mut *self.at(x);
        Ok(scratch.model.obj(&scratch.x)?)
    }
    fn grad(&self, x: &D::Vector, g: &mut D::Vector) -> Result<(), SolverError> {
        let scratch = &mut *self.at(x);
        scratch.model.grad(&scratch.x, &mut scratch.g)?;
        let n = self.model.meta().nvar;
        self.device.copy_range(g, 0, &scratch.g, 0, n);
        Ok(())
    }
    fn cons(&self, x: &D::Vector, c: &mut D::Vector) -> Result<(), SolverError> {
        let scratch = &mut *self.at(x);
        Ok(scratch.model.cons(&scratch.x, c)?)
    }
    fn jac_coord(&self, x: &D::Vector, vals: &mut D::Vector) -> Result<(), SolverError> {
        let scratch = &mut *self.at(x);
        Ok(scratch.model.jac_coord(&scratch.x, vals)?)
    }
    fn hess_coord(
        &self,
        x: &D::Vector,
        y: &D::Vector,
        obj_weight: f64,
        vals: &mut D::Vector,
    ) -> Result<(), SolverError> {
        let scratch = &mut *self.at(x);
        Ok(scratch.model.hess_coord(&scratch.x, y, obj_weight, vals)?)
    }
}
