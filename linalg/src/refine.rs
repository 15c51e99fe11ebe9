//! Iterative refinement (placeholder).
