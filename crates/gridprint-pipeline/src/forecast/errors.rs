//! Error measures shared by the per-series backtest ([`super::fit`]) and the footprint yardstick
//! ([`super::eval`]): running sums of absolute and percentage errors, and their means.

/// Errors of a model over a backtest.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Errors {
    /// Points compared.
    pub n: usize,
    /// Mean absolute error (MW for inputs, g/kWh for footprints).
    pub mae: f64,
    /// Mean absolute percentage error over points whose actual value is at least 1, in %.
    pub mape: f64,
    /// Points counted in the MAPE.
    pub n_mape: usize,
}

/// Running sums behind [`Errors`].
#[derive(Debug, Clone, Copy, Default)]
pub struct ErrorSums {
    n: usize,
    abs: f64,
    pct: f64,
    n_pct: usize,
}

impl ErrorSums {
    /// Adds one compared point.
    pub fn add(&mut self, actual: f64, predicted: f64) {
        let e = (actual - predicted).abs();
        self.n += 1;
        self.abs += e;
        if actual.abs() >= 1.0 {
            self.pct += e / actual.abs();
            self.n_pct += 1;
        }
    }

    /// Adds another set of sums.
    pub fn merge(&mut self, other: &ErrorSums) {
        self.n += other.n;
        self.abs += other.abs;
        self.pct += other.pct;
        self.n_pct += other.n_pct;
    }

    /// The errors so far (NaN where nothing was compared).
    pub fn finish(&self) -> Errors {
        let mean = |s: f64, n: usize| if n > 0 { s / n as f64 } else { f64::NAN };
        Errors {
            n: self.n,
            mae: mean(self.abs, self.n),
            mape: 100.0 * mean(self.pct, self.n_pct),
            n_mape: self.n_pct,
        }
    }
}
