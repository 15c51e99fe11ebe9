//! The on-disk cache of compiled kernel modules: PTX from [`crate::Nvrtc`] and the shared
//! libraries g++ builds for [`crate::Emu`], so that a module is compiled once per machine
//! rather than once per process.
//!
//! An entry is named by the SHA-256 ([`CacheKey`]) of everything its bytes depend on — the
//! kernel source, the compiler's identity and version, the options and the target
//! architecture — so a changed source or a new compiler simply misses. Location (see
//! [`KernelCache::from_env`]): `$SIMDNLP_KERNEL_CACHE` when set (`off` disables the cache),
//! else `$XDG_CACHE_HOME/simdnlp`, else `$HOME/.cache/simdnlp`.
//!
//! Each entry is one file `<key>.<kind>`: an 8-byte magic, the SHA-256 of the payload, then
//! the payload. Writes go to a temporary file in the same directory that is renamed over
//! the entry (atomic on POSIX file systems), so a reader sees a whole entry or none, also
//! with several processes at once. The cache never fails a compile: an entry that cannot
//! be read, is truncated or does not match its checksum is a `tracing` warning and a
//! miss (the caller recompiles and overwrites it), and a failed write is a warning too.
//!
//! ```
//! use simdnlp_device::{CacheKey, KernelCache};
//!
//! let dir = std::env::temp_dir().join(format!("simdnlp-cache-doc-{}", std::process::id()));
//! let cache = KernelCache::at(&dir);
//! let key = CacheKey::of(&[b"nvrtc 13.0", b"compute_90", b"__global__ void k() {}"]);
//! assert_eq!(cache.load(&key, "ptx"), None); // a miss
//! cache.store(&key, "ptx", b".version 9.0");
//! assert_eq!(cache.load(&key, "ptx").as_deref(), Some(&b".version 9.0"[..]));
//! assert_eq!(KernelCache::disabled().load(&key, "ptx"), None);
//! # std::fs::remove_dir_all(&dir).ok();
//! ```

use sha2::{Digest, Sha256};
use std::ffi::OsString;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Environment variable naming the cache directory; the value `off` disables the cache.
pub const KERNEL_CACHE_ENV: &str = "SIMDNLP_KERNEL_CACHE";

/// First bytes of every entry (format version 1).
const MAGIC: &[u8; 8] = b"SNKCACH1";
/// Bytes of the SHA-256 checksum after the magic.
const DIGEST_BYTES: usize = 32;

/// How a device got one of its modules: compiled now, or read from the on-disk cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModuleBuild {
    /// Wall time of the compile (or of reading and loading the cached entry).
    pub time: Duration,
    /// The module came from the on-disk cache (no compiler ran).
    pub from_disk: bool,
}

/// The SHA-256 of a module's inputs, naming its cache entry (64 lowercase hex digits).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey(String);

impl CacheKey {
    /// The key of the inputs `parts`, in order. Each part is hashed with its length first,
    /// so `["ab", "c"]` and `["a", "bc"]` differ.
    pub fn of(parts: &[&[u8]]) -> Self {
        let mut hasher = Sha256::new();
        for part in parts {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
        Self(hex(&hasher.finalize()))
    }

    /// The key as 64 hex digits (the entry's file name without its kind).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Where compiled modules are kept between processes (see the module documentation), or
/// nowhere when disabled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCache {
    dir: Option<PathBuf>,
}

/// Distinguishes the temporary files of concurrent writers in one process.
static WRITES: AtomicU64 = AtomicU64::new(0);

impl KernelCache {
    /// The cache the environment asks for: `$SIMDNLP_KERNEL_CACHE` (a directory, or `off`
    /// for none), else `$XDG_CACHE_HOME/simdnlp`, else `$HOME/.cache/simdnlp`; disabled
    /// when none of them is set (empty values count as unset).
    pub fn from_env() -> Self {
        Self::from_vars(
            std::env::var_os(KERNEL_CACHE_ENV),
            std::env::var_os("XDG_CACHE_HOME"),
            std::env::var_os("HOME"),
        )
    }

    /// [`KernelCache::from_env`] with the three variables given (`SIMDNLP_KERNEL_CACHE`,
    /// `XDG_CACHE_HOME`, `HOME`).
    pub fn from_vars(
        cache: Option<OsString>,
        xdg_cache_home: Option<OsString>,
        home: Option<OsString>,
    ) -> Self {
        let set = |v: Option<OsString>| v.filter(|v| !v.is_empty());
        let dir = match set(cache) {
            Some(v) if v == "off" => None,
            Some(v) => Some(PathBuf::from(v)),
            None => set(xdg_cache_home)
                .map(|d| PathBuf::from(d).join("simdnlp"))
                .or_else(|| set(home).map(|h| PathBuf::from(h).join(".cache").join("simdnlp"))),
        };
        Self { dir }
    }

    /// A cache in directory `dir` (created at the first store).
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: Some(dir.into()),
        }
    }

    /// No cache: every load misses and stores do nothing.
    pub fn disabled() -> Self {
        Self { dir: None }
    }

    /// The directory, or `None` when the cache is disabled.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The file of entry `key` of kind `kind` (`ptx`, `so`), or `None` when disabled.
    pub fn entry_path(&self, key: &CacheKey, kind: &str) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|d| d.join(format!("{}.{kind}", key.as_str())))
    }

    /// The payload of entry `key` of kind `kind`: `None` when the cache is disabled, the
    /// entry is missing, or it is unreadable or corrupt (wrong magic, truncated, checksum
    /// mismatch: a `tracing` warning; the caller recompiles and stores over it).
    pub fn load(&self, key: &CacheKey, kind: &str) -> Option<Vec<u8>> {
        let path = self.entry_path(key, kind)?;
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                tracing::warn!(
                    "kernel cache: cannot read {} ({e}); compiling instead",
                    path.display()
                );
                return None;
            }
        };
        let header = MAGIC.len() + DIGEST_BYTES;
        let valid = bytes.len() >= header
            && &bytes[..MAGIC.len()] == MAGIC
            && Sha256::digest(&bytes[header..]).as_slice() == &bytes[MAGIC.len()..header];
        if !valid {
            tracing::warn!(
                "kernel cache: {} is corrupt (bad header or checksum); compiling instead",
                path.display()
            );
            return None;
        }
        let mut payload = bytes;
        payload.drain(..header);
        Some(payload)
    }

    /// Store `payload` as entry `key` of kind `kind` (atomically: a temporary file renamed
    /// over the entry). Does nothing when disabled; a failure is a `tracing` warning.
    pub fn store(&self, key: &CacheKey, kind: &str, payload: &[u8]) {
        let Some(path) = self.entry_path(key, kind) else {
            return;
        };
        if let Err(e) = self.write_entry(&path, payload) {
            tracing::warn!(
                "kernel cache: cannot write {} ({e}); the module stays uncached",
                path.display()
            );
        }
    }

    fn write_entry(&self, path: &Path, payload: &[u8]) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let mut name = path.file_name().unwrap_or_default().to_os_string();
        name.push(format!(
            ".tmp-{}-{}",
            std::process::id(),
            WRITES.fetch_add(1, Ordering::Relaxed)
        ));
        let temporary = dir.join(name);
        let written = (|| {
            let mut file = std::fs::File::create(&temporary)?;
            file.write_all(MAGIC)?;
            file.write_all(&Sha256::digest(payload))?;
            file.write_all(payload)?;
            file.sync_all()?;
            std::fs::rename(&temporary, path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temporary);
        }
        written
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(s: &str) -> Option<OsString> {
        Some(s.into())
    }

    #[test]
    fn location_follows_the_environment() {
        let at = |c, x, h| KernelCache::from_vars(c, x, h).dir().map(Path::to_path_buf);
        assert_eq!(at(os("/c"), os("/x"), os("/h")), Some("/c".into()));
        assert_eq!(at(os("off"), os("/x"), os("/h")), None);
        assert_eq!(at(None, os("/x"), os("/h")), Some("/x/simdnlp".into()));
        assert_eq!(
            at(os(""), os(""), os("/h")),
            Some("/h/.cache/simdnlp".into())
        );
        assert_eq!(at(None, None, None), None);
    }

    #[test]
    fn keys_separate_their_parts() {
        let a = CacheKey::of(&[b"ab", b"c"]);
        assert_ne!(a, CacheKey::of(&[b"a", b"bc"]));
        assert_eq!(a, CacheKey::of(&[b"ab", b"c"]));
        assert_eq!(a.as_str().len(), 64);
        // SHA-256 of the empty input: the hash is the standard one, stable across releases
        assert_eq!(
            hex(&Sha256::digest(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn hit_miss_corrupt_and_disabled() {
        let dir = std::env::temp_dir().join(format!("simdnlp-kcache-unit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let cache = KernelCache::at(&dir);
        let key = CacheKey::of(&[b"source"]);
        assert_eq!(cache.load(&key, "so"), None);
        cache.store(&key, "so", b"payload");
        assert_eq!(cache.load(&key, "so").as_deref(), Some(&b"payload"[..]));
        assert_eq!(cache.load(&key, "ptx"), None, "kinds are separate entries");
        let path = cache.entry_path(&key, "so").unwrap();
        // a flipped payload byte, a truncated file, garbage: all misses
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(cache.load(&key, "so"), None);
        std::fs::write(&path, &bytes[..20]).unwrap();
        assert_eq!(cache.load(&key, "so"), None);
        std::fs::write(
            &path,
            b"not an entry at all, but long enough to hold a header",
        )
        .unwrap();
        assert_eq!(cache.load(&key, "so"), None);
        // a store repairs it; no temporary file stays behind
        cache.store(&key, "so", b"payload");
        assert_eq!(cache.load(&key, "so").as_deref(), Some(&b"payload"[..]));
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        let off = KernelCache::disabled();
        off.store(&key, "so", b"x");
        assert_eq!(off.load(&key, "so"), None);
        // a directory that cannot be created: a warning, no panic, no entry
        let blocked = KernelCache::at(path.join("below-a-file"));
        blocked.store(&key, "so", b"x");
        assert_eq!(blocked.load(&key, "so"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
