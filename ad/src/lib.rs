//! Expression graphs, registered functions and the coloring-free sparse AD pattern compiler
//! of simdnlp. See `CONTRACT.md` in this crate for the public API the modeling layer uses.
