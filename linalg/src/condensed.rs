//! Condensed KKT products (placeholder, filled in below).
