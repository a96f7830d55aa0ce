//! The config file of `gridprint query`: `$XDG_CONFIG_HOME/gridprint/config.toml` or
//! `~/.config/gridprint/config.toml` (or `--config`), TOML with an optional `url`, `email` and
//! `password`. Reading it warns when other users can read it; `--save-config` writes it with
//! permissions 0600 (through `gridprint_client::token`'s private-file helpers).
//!
//! Flags and `GRIDPRINT_*` variables take precedence over it: see `run` in [`super`].

use anyhow::Context;
use gridprint_client::token::{create_private_dir, user_config_dir, write_private_file};
use std::path::{Path, PathBuf};

/// The config file: every key optional.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub struct ConfigFile {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password: Option<String>,
}

/// The default config file path.
pub fn default_config_path() -> Option<PathBuf> {
    user_config_dir().map(|d| d.join("gridprint").join("config.toml"))
}

pub fn read_config(path: &Path) -> anyhow::Result<ConfigFile> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ConfigFile::default()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if let Ok(m) = std::fs::metadata(path)
            && m.permissions().mode() & 0o077 != 0
        {
            eprintln!(
                "warning: {} is readable by other users; run `chmod 600 {}`",
                path.display(),
                path.display()
            );
        }
    }
    toml::from_str(&text).with_context(|| format!("reading {}", path.display()))
}

pub fn save_config(path: &Path, cfg: &ConfigFile) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        create_private_dir(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let text = toml::to_string(cfg).context("writing the config")?;
    write_private_file(path, text.as_bytes()).with_context(|| format!("writing {}", path.display()))
}
