//! The processor the bench runs on, for its header: ratios to ECB differ
//! between Intel and AMD and between generations.
//!
//! On Linux the names come from `/proc/cpuinfo`: `model name`, `vendor_id`,
//! `cpu family` and `model` (the numbers matter in virtual machines, whose
//! model name is often a generic "Intel(R) Xeon(R) Processor"); on ARM, where
//! those keys are absent, `CPU implementer`, `CPU architecture` and
//! `CPU part`. Elsewhere each name is "unknown". The instruction-set features
//! the kernels choose between (AES-NI, VAES, VPCLMULQDQ, AVX-512F, AVX-512
//! IFMA) come from the runtime detection the library itself uses, so they
//! count only what the CPU and the operating system both enable.

/// The processor's names and the features the modes' kernels choose between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cpu {
    /// Marketing name (`model name`), or "unknown".
    pub model_name: String,
    /// Vendor (`vendor_id`, e.g. GenuineIntel, AuthenticAMD), or "unknown".
    pub vendor: String,
    /// Family number (`cpu family`), or "unknown".
    pub family: String,
    /// Model number (`model`), or "unknown".
    pub model: String,
    /// Detected features, each with whether the CPU has it.
    pub features: Vec<(&'static str, bool)>,
}

impl Cpu {
    /// The processor this program runs on.
    pub fn detect() -> Cpu {
        let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        Cpu::from_cpuinfo(&text, features())
    }

    /// The names from the text of a `/proc/cpuinfo` (the first processor's).
    pub fn from_cpuinfo(text: &str, features: Vec<(&'static str, bool)>) -> Cpu {
        let field = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| cpuinfo_field(text, k))
                .unwrap_or_else(|| "unknown".to_string())
        };
        Cpu {
            model_name: field(&["model name", "Hardware"]),
            vendor: field(&["vendor_id", "CPU implementer"]),
            family: field(&["cpu family", "CPU architecture"]),
            model: field(&["model", "CPU part"]),
            features,
        }
    }

    /// One line for the text table's header.
    pub fn describe(&self) -> String {
        let feats: Vec<String> = self
            .features
            .iter()
            .map(|(name, has)| format!("{name} {}", if *has { "yes" } else { "no" }))
            .collect();
        format!(
            "{} ({}, family {}, model {}); {}",
            self.model_name,
            self.vendor,
            self.family,
            self.model,
            if feats.is_empty() {
                "x86 features: n/a".to_string()
            } else {
                feats.join(", ")
            }
        )
    }

    /// The `--json` header object.
    pub fn to_json(&self) -> serde_json::Value {
        let feats: serde_json::Map<String, serde_json::Value> = self
            .features
            .iter()
            .map(|(name, has)| (name.to_string(), (*has).into()))
            .collect();
        serde_json::json!({
            "model_name": self.model_name,
            "vendor": self.vendor,
            "family": self.family,
            "model": self.model,
            "arch": std::env::consts::ARCH,
            "features": feats,
        })
    }
}

/// The value of `key` for the first processor: the text after the colon of
/// the first line whose name, trimmed, is exactly `key` (empty values skipped).
fn cpuinfo_field(text: &str, key: &str) -> Option<String> {
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim() == key)
        .map(|(_, value)| value.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// AES-NI, VAES, VPCLMULQDQ, AVX-512F and AVX-512 IFMA, as detected at run time.
#[cfg(target_arch = "x86_64")]
fn features() -> Vec<(&'static str, bool)> {
    use std::arch::is_x86_feature_detected as has;
    vec![
        ("aes-ni", has!("aes")),
        ("vaes", has!("vaes")),
        ("vpclmulqdq", has!("vpclmulqdq")),
        ("avx512f", has!("avx512f")),
        ("avx512ifma", has!("avx512ifma")),
    ]
}

/// No x86 features off x86-64.
#[cfg(not(target_arch = "x86_64"))]
fn features() -> Vec<(&'static str, bool)> {
    Vec::new()
}
