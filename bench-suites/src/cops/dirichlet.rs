//! dirichlet (COPS): builder in progress.
