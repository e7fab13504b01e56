//! The ptxas oracle: `oracle.json` from the corpus build (`/work/shared/corpus/build.sh`),
//! one record per (PTX file, budget, function) with what the real ptxas 13.0.88 reported.
//!
//! Owns reading and validating the records; must not know how radbg computes its figures.

use serde_json::Value;

/// Whether a function is a kernel (`.entry`) or a device function (`.func`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OracleKind {
    Entry,
    Func,
}

/// One record: what ptxas said about one function at one budget.
#[derive(Clone, Debug, PartialEq)]
pub struct OracleRecord {
    /// PTX file name inside the corpus `ptx/` directory.
    pub file: String,
    pub sm: String,
    /// `--maxrregcount`, `None` for ptxas's default.
    pub maxrregcount: Option<u32>,
    /// The function's name as ptxas prints it (mangled).
    pub function: String,
    pub kind: OracleKind,
    /// `Used N registers` (entries only).
    pub registers: Option<u32>,
    pub spill_stores: u32,
    pub spill_loads: u32,
    /// `N bytes stack frame` (0 when the record has none).
    pub stack_frame: u32,
    /// ptxas's own compile time for the whole file at this budget, when it printed one.
    pub compile_ms: Option<f64>,
}

/// Parses `oracle.json`; `name` names the file in errors.
pub fn parse(name: &str, text: &str) -> Result<Vec<OracleRecord>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("{name}: not JSON: {e}"))?;
    let Value::Array(items) = v else {
        return Err(format!("{name}: expected a list of records"));
    };
    items.iter().enumerate().map(|(i, r)| record(r).map_err(|e| format!("{name}: record {i}: {e}"))).collect()
}

fn record(r: &Value) -> Result<OracleRecord, String> {
    let s =
        |k: &str| r.get(k).and_then(Value::as_str).map(str::to_string).ok_or_else(|| format!("missing string `{k}`"));
    let n = |k: &str| -> Result<Option<u32>, String> {
        match r.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|x| u32::try_from(x).ok())
                .map(Some)
                .ok_or_else(|| format!("`{k}` is not a non-negative integer")),
        }
    };
    let kind = match s("kind")?.as_str() {
        "entry" => OracleKind::Entry,
        "func" => OracleKind::Func,
        k => return Err(format!("unknown kind `{k}`")),
    };
    let file = s("file")?;
    if file.contains('/') || file.contains("..") {
        return Err(format!("file `{file}` must be a plain name inside ptx/"));
    }
    Ok(OracleRecord {
        file,
        sm: s("sm")?,
        maxrregcount: n("maxrregcount")?,
        function: s("function")?,
        kind,
        registers: if kind == OracleKind::Entry { n("registers")? } else { None },
        spill_stores: n("spill_stores")?.unwrap_or(0),
        spill_loads: n("spill_loads")?.unwrap_or(0),
        stack_frame: n("stack_frame")?.unwrap_or(0),
        compile_ms: r.get("compile_ms").and_then(Value::as_f64),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_entries_and_funcs_and_rejects_bad_records() {
        let ok = r#"[{"file":"a.sm_80.ptx","sm":"sm_80","maxrregcount":null,"function":"k","kind":"entry",
            "registers":24,"spill_stores":0,"spill_loads":0,"compile_ms":5.9},
            {"file":"a.sm_80.ptx","sm":"sm_80","maxrregcount":32,"function":"f","kind":"func",
            "registers":null,"spill_stores":20,"spill_loads":20,"compile_ms":null}]"#;
        let r = parse("o.json", ok).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].registers, r[0].maxrregcount, r[0].compile_ms), (Some(24), None, Some(5.9)));
        assert_eq!((r[1].kind, r[1].registers, r[1].spill_stores), (OracleKind::Func, None, 20));
        for (bad, want) in [
            ("{}", "expected a list"),
            ("[{\"file\":\"a\"}]", "record 0: missing string `kind`"),
            (r#"[{"file":"../x","sm":"s","function":"f","kind":"entry"}]"#, "plain name"),
            (r#"[{"file":"x","sm":"s","function":"f","kind":"weird"}]"#, "unknown kind"),
            (r#"[{"file":"x","sm":"s","function":"f","kind":"entry","registers":-1}]"#, "`registers`"),
        ] {
            let e = parse("o.json", bad).unwrap_err();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }
}
