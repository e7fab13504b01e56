//! The real ptxas 13.0.88 of the corpus cache, for tests that re-measure the figures
//! they record (skipped, saying so, when the cache is absent).

use std::path::{Path, PathBuf};
use std::process::Command;

/// A file of the corpus cache (`$RADBG_CORPUS_CACHE`, else `~/.cache/radbg-corpus`).
pub fn corpus_tool(rel: &str) -> Option<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from)?;
    let cache = std::env::var_os("RADBG_CORPUS_CACHE").map_or_else(|| home.join(".cache/radbg-corpus"), PathBuf::from);
    let p = cache.join(rel);
    p.exists().then_some(p)
}

/// ptxas, when the corpus cache has it.
pub fn ptxas() -> Option<PathBuf> {
    corpus_tool("root/nvidia/cu13/bin/ptxas")
}

/// ptxas with a fresh scratch directory `radbg-TAG-PID` under the temp directory; `None`,
/// saying that `unmeasured` is not re-measured, when the corpus cache has no ptxas.
#[allow(dead_code)] // not every test binary that includes `common` runs ptxas
pub fn ptxas_in(tag: &str, unmeasured: &str) -> Option<(PathBuf, PathBuf)> {
    let Some(ptxas) = ptxas() else {
        eprintln!("ptxas 13.0.88 not in the corpus cache: {unmeasured} not re-measured");
        return None;
    };
    let dir = std::env::temp_dir().join(format!("radbg-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    Some((ptxas, dir))
}

/// The first `Used N registers` of `ptxas -arch=sm_80 -v` on `file`, with its log.
pub fn used_registers(ptxas: &Path, file: &Path) -> (Option<u32>, String) {
    let out =
        Command::new(ptxas).args(["-arch=sm_80", "-v", "-o", "/dev/null"]).arg(file).output().expect("ptxas runs");
    let log = String::from_utf8_lossy(&out.stderr).to_string();
    let used = log.split("Used ").nth(1).and_then(|s| s.split_whitespace().next()).and_then(|n| n.parse().ok());
    (used, log)
}

/// nvdisasm: `$NVDISASM`, else beside ptxas, else PyPI's `nvidia-cuda-nvdisasm` in the
/// Python on the PATH, else `nvdisasm` on the PATH.
pub fn nvdisasm() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("NVDISASM").map(PathBuf::from).filter(|p| p.exists()) {
        return Some(p);
    }
    if let Some(p) = corpus_tool("root/nvidia/cu13/bin/nvdisasm") {
        return Some(p);
    }
    let purelib = Command::new("python3")
        .args(["-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"])
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(p) = purelib.map(|d| PathBuf::from(d).join("nvidia/cu13/bin/nvdisasm")).filter(|p| p.exists()) {
        return Some(p);
    }
    Command::new("nvdisasm").arg("--version").output().ok().filter(|o| o.status.success()).map(|_| "nvdisasm".into())
}

/// ptxas and nvdisasm with a fresh scratch directory, for a test that re-measures what
/// ptxas does; `None` (saying what is not re-measured) when either tool is absent.
#[allow(dead_code)] // not every test binary that includes `common` disassembles
pub struct SassTools {
    pub ptxas: PathBuf,
    pub nvdisasm: PathBuf,
    pub dir: PathBuf,
}

/// [`SassTools`] in `radbg-TAG-PID` under the temp directory; `unmeasured` names what the
/// test then skips ("the bank reads").
#[allow(dead_code)]
pub fn sass_tools(tag: &str, unmeasured: &str) -> Option<SassTools> {
    let (Some(ptxas), Some(nvdisasm)) = (ptxas(), nvdisasm()) else {
        eprintln!("ptxas 13.0.88 or nvdisasm not found: {unmeasured} are not re-measured");
        return None;
    };
    let dir = std::env::temp_dir().join(format!("radbg-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    Some(SassTools { ptxas, nvdisasm, dir })
}

/// The SASS ptxas (sm_80) makes of `text`, disassembled by nvdisasm (`-c`); the PTX and
/// the cubin are written into `dir` as `NAME.ptx` and `NAME.cubin`.
pub fn sass(ptxas: &Path, nvdisasm: &Path, dir: &Path, name: &str, text: &str) -> String {
    sass_for(ptxas, nvdisasm, dir, name, text, "sm_80")
}

/// [`sass`] for the architecture `sm` (`sm_90`, …).
#[allow(dead_code)] // not every test binary that includes `common` compiles for sm_90
pub fn sass_for(ptxas: &Path, nvdisasm: &Path, dir: &Path, name: &str, text: &str, sm: &str) -> String {
    let (ptx, cubin) = (dir.join(format!("{name}.ptx")), dir.join(format!("{name}.cubin")));
    std::fs::write(&ptx, text).expect("writes the PTX");
    let arch = format!("-arch={sm}");
    let out = Command::new(ptxas).args([arch.as_str(), "-o"]).arg(&cubin).arg(&ptx).output().expect("ptxas runs");
    assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
    let sass = Command::new(nvdisasm).arg("-c").arg(&cubin).output().expect("nvdisasm runs");
    String::from_utf8_lossy(&sass.stdout).into_owned()
}
