//! Primal-dual interior-point filter line-search solver (Ipopt's method) for
//! [`simdnlp_modeling::NlpModel`]s.
