//! DP convex learners.
