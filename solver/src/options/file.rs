//! Options files: Ipopt's format (`name value` per line, `#` comments) and TOML
//! (`name = value`), both applied through [`Options::set`] so they accept the same names
//! and values and fail the same way.

use std::collections::BTreeMap;
use std::path::Path;

use super::{OptionError, Options};

impl Options {
    /// Applies Ipopt-format options text: one `name value` pair per line, `#` starts a
    /// comment, blank lines are skipped, a later line overrides an earlier one. `origin`
    /// (a file name, say) prefixes error messages. All or nothing: on error `self` is
    /// unchanged.
    ///
    /// # Errors
    /// [`OptionError::Syntax`] for a line that is not exactly two words,
    /// [`OptionError::InFile`] (with the line number) for an unknown name or a bad value.
    pub fn apply_ipopt_text(&mut self, text: &str, origin: &str) -> Result<(), OptionError> {
        let mut updated = self.clone();
        for (k, raw) in text.lines().enumerate() {
            let line = k + 1;
            let content = raw.split('#').next().unwrap_or_default().trim();
            if content.is_empty() {
                continue;
            }
            let mut words = content.split_whitespace();
            let (Some(name), Some(value), None) = (words.next(), words.next(), words.next()) else {
                return Err(OptionError::Syntax {
                    origin: origin.to_string(),
                    line,
                    text: content.to_string(),
                });
            };
            updated.set(name, value).map_err(in_file(origin, line))?;
        }
        *self = updated;
        Ok(())
    }

    /// Applies TOML options text: top-level `name = value` keys, values as strings
    /// (`mu_strategy = "adaptive"`), numbers (`tol = 1e-6`, `max_iter = 100`) or booleans
    /// (`nlp_scaling = false`). An integer option given a float (`max_iter = 3.0`) is a
    /// type error, as is a table, array or date. All or nothing: on error `self` is
    /// unchanged.
    ///
    /// # Errors
    /// [`OptionError::Toml`] when the text is not TOML or a value is a table, array or
    /// date; [`OptionError::InFile`] (with the line number) for an unknown name or a bad
    /// value.
    pub fn apply_toml_text(&mut self, text: &str, origin: &str) -> Result<(), OptionError> {
        let toml_error = |line: usize, message: String| OptionError::Toml {
            origin: origin.to_string(),
            line,
            message,
        };
        let table: BTreeMap<String, toml::Spanned<toml::Value>> =
            toml::from_str(text).map_err(|e| {
                let line = e.span().map_or(0, |span| line_of(text, span.start));
                toml_error(line, e.message().to_string())
            })?;
        let mut entries: Vec<_> = table.iter().collect();
        entries.sort_by_key(|(_, value)| value.span().start);
        let mut updated = self.clone();
        for (name, spanned) in entries {
            let line = line_of(text, spanned.span().start);
            let value_text = match spanned.get_ref() {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                // `{:?}` keeps the decimal point (`3.0`), so an integer option rejects it
                toml::Value::Float(f) => format!("{f:?}"),
                toml::Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(toml_error(
                        line,
                        format!(
                            "option `{name}`: a TOML {} is not an option value \
                             (expected a string, number or boolean)",
                            other.type_str()
                        ),
                    ));
                }
            };
            updated
                .set(name, &value_text)
                .map_err(in_file(origin, line))?;
        }
        *self = updated;
        Ok(())
    }

    /// Reads and applies an options file: TOML when the extension is `.toml`, Ipopt's
    /// format otherwise (`ipopt.opt`, `*.opt`, ...). All or nothing.
    ///
    /// # Errors
    /// [`OptionError::Io`] when the file cannot be read, otherwise as
    /// [`Options::apply_toml_text`] / [`Options::apply_ipopt_text`].
    pub fn apply_file(&mut self, path: impl AsRef<Path>) -> Result<(), OptionError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| OptionError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let origin = path.display().to_string();
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
        {
            self.apply_toml_text(&text, &origin)
        } else {
            self.apply_ipopt_text(&text, &origin)
        }
    }

    /// The defaults with an options file applied ([`Options::apply_file`]), validated.
    ///
    /// # Errors
    /// As [`Options::apply_file`], then as [`Options::validate`].
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, OptionError> {
        let mut options = Self::default();
        options.apply_file(path)?;
        options.validate()?;
        Ok(options)
    }
}

/// 1-based line of byte offset `at` in `text`.
fn line_of(text: &str, at: usize) -> usize {
    let before = text.as_bytes().get(..at).unwrap_or(text.as_bytes());
    1 + before.iter().filter(|&&b| b == b'\n').count()
}

/// Wraps an option error with where it was read.
fn in_file(origin: &str, line: usize) -> impl FnOnce(OptionError) -> OptionError + '_ {
    move |error| OptionError::InFile {
        origin: origin.to_string(),
        line,
        error: Box::new(error),
    }
}
