//! AMPL `.nl` import with automatic pattern detection, and the `.sol` writer of the AMPL
//! solver protocol.
//!
//! Modeling systems (Pyomo, JuMP, AMPL, GAMS) hand models to solvers as `.nl` files: one
//! scalar expression tree per row. [`import`] reads a file (text or binary), groups the
//! rows whose trees are equal up to variable indices and constants, and builds one pattern
//! per group over a data table of those indices and constants — so an imported model gets
//! the same compact pattern-compiled callbacks as one written with [`ModelBuilder`].
//!
//! ```
//! use simdnlp_modeling::{nl, NlpModel};
//! // min (x0 - 1)^2 + (x1 - 2)^2  s.t.  x0 + x1 = 1   (a text .nl file)
//! let text = "g3 1 1 0\n 2 1 1 0 1\n 0 1\n 0 0\n 0 2 0\n 0 0 0 1\n 0 0 0 0 0\n 2 2\n 0 0\n 0 0 0 0 0\n\
//!     C0\nn0\nO0 0\no54\n2\no5\no0\nv0\nn-1\nn2\no5\no0\nv1\nn-2\nn2\nr\n4 1\nb\n3\n3\n\
//!     k1\n1\nJ0 2\n0 1\n1 1\n";
//! let imported = nl::import_bytes(text.as_bytes(), nl::Names::default())?;
//! assert_eq!((imported.model.meta().nvar, imported.model.meta().ncon), (2, 1));
//! assert_eq!(imported.patterns, 3); // one objective shape; the (unique) row and its linear part
//! assert_eq!(imported.model.obj(&[1.0, 2.0]), 0.0);
//! # Ok::<(), nl::NlError>(())
//! ```
//!
//! [`ModelBuilder`]: crate::ModelBuilder

mod build;
mod error;
mod patterns;
mod reader;
mod sol;
mod tree;

pub use build::NlModel;
pub use error::{Item, Location, NlError};
pub use reader::{MAX_DEPTH, Names, NlDefined, NlFile, NlHeader, NlObjective, parse};
pub use sol::{SolFile, write_sol};
pub use tree::{Arity, Op, Tree};

use std::path::{Path, PathBuf};

/// The stub of a problem path: `model.nl` and `model` both give `model` (Pyomo passes the
/// full `x.pyomo.nl` path, AMPL the stub).
pub fn stub_of(path: &Path) -> PathBuf {
    match path.extension() {
        Some(e) if e == "nl" => path.with_extension(""),
        _ => path.to_path_buf(),
    }
}

/// `STUB.ext`: the stub with a suffix appended (not replacing one: the stub of
/// `x.pyomo.nl` is `x.pyomo`, its solution `x.pyomo.sol`).
pub fn stub_file(stub: &Path, ext: &str) -> PathBuf {
    let mut s = stub.as_os_str().to_owned();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Reads the `.row` and `.col` name files beside a stub, when present (one name a line).
pub fn read_names(stub: &Path) -> Names {
    let lines = |ext: &str| {
        std::fs::read_to_string(stub_file(stub, ext))
            .map(|s| s.lines().map(str::to_string).collect())
            .unwrap_or_default()
    };
    Names {
        rows: lines("row"),
        cols: lines("col"),
    }
}

/// Imports `path` (`STUB.nl`, or the stub itself), with names from `STUB.row`/`STUB.col`
/// when present.
pub fn import(path: &Path) -> Result<NlModel, NlError> {
    let stub = stub_of(path);
    let nl = stub_file(&stub, "nl");
    let data = std::fs::read(&nl).map_err(|source| NlError::Io {
        path: nl.display().to_string(),
        source,
    })?;
    import_bytes(&data, read_names(&stub))
}

/// Imports the bytes of a `.nl` file.
pub fn import_bytes(data: &[u8], names: Names) -> Result<NlModel, NlError> {
    let file = parse(data, &names)?;
    build::build(&file, names)
}
