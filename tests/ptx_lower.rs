//! One construct at a time: a few PTX statements inside a kernel with a fixed set of
//! registers, and the Ori instructions they become (or the diagnostic they get).
//! Data-driven: `check(ptx, expected)` and `check_err(ptx, expected message)`.

use radbg::ir::print::print_inst;

const HEADER: &str = ".version 8.0\n.target sm_90\n.address_size 64\n\
.global .align 4 .b8 gvar[64];\n.global .texref tex;\n\
.func (.param .b32 r) f(.param .b32 a) { .reg .b32 %x; ld.param.b32 %x, [a]; st.param.b32 [r], %x; ret; }\n\
.visible .entry k(.param .u64 k_p0, .param .u32 k_p1) {\n\
.reg .pred %p<4>;\n.reg .b16 %h<4>;\n.reg .b32 %r<8>;\n.reg .f32 %f<8>;\n.reg .b64 %rd<4>;\n.reg .f64 %fd<4>;\n\
.reg .v4 .f32 %v;\n";

/// Imports `body` inside the kernel and returns its instructions, one per line
/// (without the final EXIT), or the rendered diagnostics.
fn lower(body: &str) -> Result<String, String> {
    let text = format!("{HEADER}{body}\nret;\n}}\n");
    let (m, _) = radbg::ir::ptx::import_str("t.ptx", &text)?;
    let f = &m.functions[m.function("k").expect("kernel")];
    let mut lines: Vec<String> = f.blocks.iter().flat_map(|b| &b.insts).map(|i| print_inst(f, i)).collect();
    lines.pop();
    Ok(lines.join("\n"))
}

#[track_caller]
fn check(body: &str, expected: &str) {
    let expected: Vec<&str> = expected.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    match lower(body) {
        Ok(got) => assert_eq!(got, expected.join("\n"), "lowering of:\n{body}"),
        Err(e) => panic!("import of\n{body}\nfailed:\n{e}"),
    }
}

#[track_caller]
fn check_err(body: &str, message: &str) {
    match lower(body) {
        Ok(got) => panic!("expected an error for\n{body}\ngot:\n{got}"),
        Err(e) => assert!(e.contains(message), "expected '{message}' in:\n{e}"),
    }
}

#[test]
fn arithmetic_and_immediates() {
    check("add.s32 %r1, %r2, 5;", "%r1 = IADD3.S32 %r2, 5");
    check("sub.s32 %r1, %r2, -7;", "%r1 = IADD3.SUB.S32 %r2, -7");
    check("add.s32 %r1, %r2, 0b101;", "%r1 = IADD3.S32 %r2, 5");
    check("add.s32 %r1, %r2, 017;", "%r1 = IADD3.S32 %r2, 15");
    check("add.s32 %r1, %r2, (1 << 4) | 3;", "%r1 = IADD3.S32 %r2, 19");
    check("add.s32 %r1, %r2, WARP_SZ;", "%r1 = IADD3.S32 %r2, 32");
    check("mov.u32 %r1, 0xFFFFFFFF;", "%r1 = MOV.U32 0xffffffff");
    check("mov.f32 %f1, 1.5;", "%f1 = MOV.F32 1.5");
    check("fma.rn.f32 %f1, %f2, 0f3F800000, %f3;", "%f1 = FFMA.RN.F32 %f2, 1.0, %f3");
    check("mad.lo.s32 %r1, %r2, %r3, %r4;", "%r1 = IMAD.LO.S32 %r2, %r3, %r4");
    check("mul.wide.s32 %rd1, %r2, 4;", "%rd1 = IMAD.MUL.WIDE.S32 %r2, 4");
    check("mul.wide.u16 %r1, %h1, %h2;", "%r1 = IMAD.MUL.U16 %h1, %h2");
    check("add.s64 %rd1, %rd2, 0xFFFFFFFFFFFFFFFF;", "%rd1 = IADD3.S64 %rd2, -1");
    check("div.rn.f32 %f1, %f2, %f3;", "%f1 = MUFU.DIV.RN.F32 %f2, %f3");
    check("rem.s32 %r1, %r2, %r3;", "%r1 = IMAD.REM.S32 %r2, %r3");
    check("min.f32 %f1, %f2, %f3;", "%f1 = FMNMX.MIN.F32 %f2, %f3");
    check("abs.s32 %r1, %r2;", "%r1 = IABS.S32 %r2");
    check("popc.b32 %r1, %r2;", "%r1 = POPC.B32 %r2");
    check("prmt.b32 %r1, %r2, %r3, 0x3210;", "%r1 = PRMT.B32 %r2, %r3, 12816");
    check("cvt.u64.u32 %rd1, %r1;", "%rd1 = PRMT.CVT.U64.U32 %r1");
    check("cvt.rn.f32.s32 %f1, %r1;", "%f1 = I2F.RN.F32.S32 %r1");
    check("cvt.rzi.s32.f64 %r1, %fd1;", "%r1 = F2I.RZI.S32.F64 %fd1");
    check("ex2.approx.ftz.f32 %f1, %f2;", "%f1 = MUFU.EX2.APPROX.FTZ.F32 %f2");
}

#[test]
fn wide_constants_are_built_in_pairs() {
    check("mov.u64 %rd1, 0x100000000;", "%rd1.lo = MOV.U64 0\n%rd1.hi = MOV.U64 1");
    check("mov.f64 %fd1, 0d3FF0000000000000;", "%fd1.lo = MOV.F64 0\n%fd1.hi = MOV.F64 0x3ff00000");
    check(
        "add.f64 %fd1, %fd2, 0d4000000000000000;",
        "%k64tmp0.lo = MOV 0\n%k64tmp0.hi = MOV 0x40000000\n%fd1 = DADD.F64 %fd2, %k64tmp0",
    );
    check(
        "add.f64 %fd1, %fd2, 1.5;",
        "%k64tmp0.lo = MOV 0\n%k64tmp0.hi = MOV 0x3ff80000\n%fd1 = DADD.F64 %fd2, %k64tmp0",
    );
    check(
        "and.b64 %rd1, %rd2, 0xFFFF00000000;",
        "%k64tmp0.lo = MOV 0\n%k64tmp0.hi = MOV 65535\n%rd1 = LOP3.AND.B64 %rd2, %k64tmp0",
    );
}

#[test]
fn predicates_guards_and_pairs() {
    check("@!%p1 add.s32 %r1, %r2, %r3;", "@!%p1 %r1 = IADD3.S32 %r2, %r3");
    check("setp.ne.and.s32 %p1|%p2, %r1, 0, %p3;", "%p1, %p2 = ISETP.NE.AND.S32 %r1, 0, %p3");
    check("and.pred %p1, %p2, !%p3;", "%np0 = PLOP3.NOT %p3\n%p1 = PLOP3.AND.PRED %p2, %np0");
    check("selp.f32 %f1, %f2, %f3, %p1;", "%f1 = FSEL.F32 %f2, %f3, %p1");
    check("shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, -1;", "%r1, %p1 = SHFL.SYNC.IDX.B32 %r2, 0, 31, -1");
    check("vote.sync.ballot.b32 %r1, %p1, -1;", "%r1 = VOTE.SYNC.BALLOT.B32 %p1, -1");
    check("setp.lt.f64 %p1, %fd1, %fd2;", "%p1 = DSETP.LT.F64 %fd1, %fd2");
}

#[test]
fn special_registers() {
    check("mov.u32 %r1, %tid.y;", "%r1 = S2R SR_TID.Y");
    check("mov.u32 %r1, %clock;", "%r1 = S2R SR_CLOCKLO");
    check("mov.u64 %rd1, %clock64;", "%rd1 = CS2R SR_CLOCKLO");
    check("mov.u32 %r1, %lanemask_lt;", "%r1 = S2R SR_LTMASK");
    check("add.s32 %r1, %tid.x, 1;", "%sr0 = S2R SR_TID.X\n%r1 = IADD3.S32 %sr0, 1");
}

#[test]
fn memory_operands() {
    check("ld.global.u32 %r1, [%rd1+-8];", "%r1 = LDG.E.U32 [%rd1 - 0x8]");
    check("ld.global.u32 %r1, [gvar+4];", "%r1 = LDG.E.U32 [gvar + 0x4]");
    check("ld.shared::cta.u32 %r1, [%r2];", "%r1 = LDS.U32 [%r2]");
    check("ld.local.f32 %f1, [%rd1];", "%f1 = LDL.F32 [%rd1]");
    check("ld.u32 %r1, [%rd1];", "%r1 = LD.E.U32 [%rd1]");
    check("ld.global.nc.L1::no_allocate.f32 %f1, [%rd1];", "%f1 = LDG.E.NC.L1_NO_ALLOCATE.F32 [%rd1]");
    check("st.global.f32 [%rd1], 0f3F800000;", "STG.E.F32 [%rd1], 1.0");
    check("st.volatile.shared.u32 [%r1+4], %r2;", "STS.VOLATILE.U32 [%r1 + 0x4], %r2");
    check("atom.shared.cas.b32 %r1, [%r2], %r3, %r4;", "%r1 = ATOMS.CAS.B32 [%r2], %r3, %r4");
    check("atom.global.add.f32 %f1, [%rd1], %f2;", "%f1 = ATOMG.E.ADD.F32 [%rd1], %f2");
    check("red.global.add.u32 [%rd1], %r1;", "RED.E.ADD.U32 [%rd1], %r1");
    check("prefetch.global.L2 [%rd1];", "CCTL.PREFETCH.GLOBAL.L2 [%rd1]");
    check("mov.u64 %rd1, gvar;", "%rd1 = MOV.U64 gvar");
    check("mov.u64 %rd1, gvar+8;", "%addr0 = IADD3.ADDR gvar, 8\n%rd1 = MOV.U64 %addr0");
    check("ld.param.u32 %r1, [k_p1];", "%r1 = LDC c[0x0][0x218]");
    check("ld.param.u64 %rd1, [k_p0];", "%rd1 = LDC.64 c[0x0][0x210]");
    check("mov.u64 %rd1, k_p0;", "%rd1 = MOV.U64 k_p0");
    check("add.u32 %r1, %r2+1, %r3+-1;", "%sum0 = IADD3 %r2, 1\n%sum1 = IADD3 %r3, -1\n%r1 = IADD3.U32 %sum0, %sum1");
    check("vadd.u32.u32.u32.add %r1, %r2.b0, %r3.h1, %r4;", "%r1 = VIDEO.VADD.U32.U32.U32.ADD %r2, %r3, %r4");
}

#[test]
fn vectors_group_into_temporaries() {
    check(
        "ld.global.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];",
        "%v4tmp0 = LDG.E.V4.F32 [%rd1 + 0x10]\n%f1 = MOV %v4tmp0.0\n%f2 = MOV %v4tmp0.1\n%f4 = MOV %v4tmp0.3",
    );
    check(
        "st.global.v2.f32 [%rd1], {%f1, %f2};",
        "%v2tmp0.lo = MOV %f1\n%v2tmp0.hi = MOV %f2\nSTG.E.V2.F32 [%rd1], %v2tmp0",
    );
    check(
        "ld.global.v2.f64 {%fd1, %fd2}, [%rd1];",
        "%v4tmp0 = LDG.E.V2.F64 [%rd1]\n%fd1.lo = MOV %v4tmp0.0\n%fd1.hi = MOV %v4tmp0.1\n%fd2.lo = MOV %v4tmp0.2\n%fd2.hi = MOV %v4tmp0.3",
    );
    check(
        "st.shared.v2.b16 [%r1], {%h1, %h2};",
        "%vtmp0 = PRMT %h1, 30224, RZ\n%vtmp0 = PRMT %h2, 4180, %vtmp0\nSTS.V2.B16 [%r1], %vtmp0",
    );
    check("mov.b64 {%r1, %r2}, %rd1;", "%r1 = MOV %rd1.lo\n%r2 = MOV %rd1.hi");
    check("mov.b64 %rd1, {%r1, %r2};", "%rd1.lo = MOV %r1\n%rd1.hi = MOV %r2");
    check(
        "mov.v2.u32 {%r1, %r2}, {%r2, %r1};",
        "%v2tmp0.lo = MOV %r2\n%v2tmp0.hi = MOV %r1\n%v2tmp1 = MOV.V2.U32 %v2tmp0\n%r1 = MOV %v2tmp1.lo\n%r2 = MOV %v2tmp1.hi",
    );
    check("mov.b32 {%h1, %h2}, %r1;", "%h1 = PRMT %r1, 17424, RZ\n%h2 = PRMT %r1, 17458, RZ");
    check("ld.global.v4.f32 %v, [%rd1];", "%v = LDG.E.V4.F32 [%rd1]");
    check("add.f32 %f1, %v.x, %v.w;", "%f1 = FADD.F32 %v.0, %v.3");
    check(
        "tex.1d.v4.s32.s32 {%r1, %r2, %r3, %r4}, [tex, {%r5}];",
        "%v4tmp0 = TEX.1D.V4.S32.S32 [tex], %r5\n%r1 = MOV %v4tmp0.0\n%r2 = MOV %v4tmp0.1\n%r3 = MOV %v4tmp0.2\n%r4 = MOV %v4tmp0.3",
    );
    check(
        "@%p1 ld.global.v2.u32 {%r1, %r2}, [%rd1];",
        "@%p1 %v2tmp0 = LDG.E.V2.U32 [%rd1]\n@%p1 %r1 = MOV %v2tmp0.lo\n@%p1 %r2 = MOV %v2tmp0.hi",
    );
}

#[test]
fn scopes_shadow_and_calls_bind_parameters() {
    check("{ .reg .b32 %r<2>; mov.u32 %r1, 1; }\nmov.u32 %r1, 2;", "%r_1_1 = MOV.U32 1\n%r1 = MOV.U32 2");
    check("{ .reg .b32 %x; mov.u32 %x, 1; }\n{ .reg .b32 %x; mov.u32 %x, 2; }", "%x = MOV.U32 1\n%x_1 = MOV.U32 2");
    check(
        "{ .param .b32 p0; st.param.b32 [p0], %r1; .param .b32 rv; call.uni (rv), f, (p0); ld.param.b32 %r2, [rv]; }",
        "%arg0 = MOV %r1\n%rv0 = CALL.UNI f, %arg0\n%r2 = MOV %rv0",
    );
    check("bar.sync %r1;", "BAR.SYNC %r1");
    check("bar.red.popc.u32 %r1, 0, %p1;", "%r1 = BAR.RED.POPC.U32 0, %p1");
}

#[test]
fn errors_name_the_problem() {
    check_err("add.s32 %r1, %r9, 1;", "undeclared register %r9: %r<8> declares %r0 to %r7");
    check_err("mov.u32 %r1, 0f3F80;", "expected exactly 8 hex digits after '0f'");
    check_err("ld.global.f32 %f1 [%rd1];", "expected ',' or ';' after the operand");
    check_err("bra $L__none;", "unknown label $L__none");
    check_err("@%r1 bra $L__none;", "guard %r1 is not a predicate register");
    check_err("mov.u32 %r1, %v.q;", "a vector component (.x .y .z .w or .r .g .b .a)");
    check_err("{ .reg .b32 %x; }\nmov.u32 %r1, %x;", "undeclared name %x");
    check_err("call.uni g, (%r1);", "call of undeclared function g");
    check_err(&"{".repeat(80), "less deeply nested '{ }' scopes");
    check_err(".reg .b32 %big<2000000>;", "a register count of at most 1048576 (the limit per declaration)");
    check_err("ld.global.u32 %r1, [%rd1+0x100000000];", "offset 4294967296 does not fit in 32 bits");
    check_err(
        "ld.param.u64 %r1, [k_p0];",
        "arguments mismatch for instruction 'ld': %r1 is .b32, the instruction works on .u64",
    );
    check_err("mov.u32 %r1, %r2.x;", "%r2 is not a vector register");
}
