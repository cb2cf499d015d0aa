// A classic-BPF seccomp program for `bwrap --seccomp FD`: socket(AF_UNIX, …) fails with EPERM, all else is
// allowed. Why: connect() on a unix socket ignores read-only mounts, so without it a sandboxed command
// could reach host sockets bound into view (the runtime's, docker's, an ssh agent's). Other ABIs on the
// same kernel (i386's socketcall, x32) are refused outright so the check cannot be sidestepped.

const LD_ABS_W = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const ALLOW = 0x7fff0000;
const EPERM = 0x00050000 | 1;
const AF_UNIX = 1;
const X32_BIT = 0x40000000;
/** struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (low half on little-endian). */
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const OFFSET_ARG0 = 16;

/** AUDIT_ARCH_* and the number of socket(2) per architecture Node runs on. */
const ARCHES: Record<string, { audit: number; socketNr: number }> = {
  x64: { audit: 0xc000003e, socketNr: 41 },
  arm64: { audit: 0xc00000b7, socketNr: 198 },
};

export function seccompSupported(arch: string = process.arch): boolean {
  return arch in ARCHES;
}

export function unixSocketFilter(arch: string = process.arch): Buffer {
  const target = ARCHES[arch];
  if (!target) throw new Error(`no seccomp filter for the ${arch} architecture`);
  // [code, jump-if-true, jump-if-false, k]; jumps count instructions after the current one.
  const program: [number, number, number, number][] = [
    [LD_ABS_W, 0, 0, OFFSET_ARCH],
    [JEQ_K, 1, 0, target.audit], // native ABI: go on
    [RET_K, 0, 0, EPERM],
    [LD_ABS_W, 0, 0, OFFSET_NR],
    [JGE_K, 3, 0, X32_BIT], // x32 syscall numbers: refuse
    [JEQ_K, 0, 3, target.socketNr], // not socket(): allow
    [LD_ABS_W, 0, 0, OFFSET_ARG0],
    [JEQ_K, 0, 1, AF_UNIX],
    [RET_K, 0, 0, EPERM],
    [RET_K, 0, 0, ALLOW],
  ];
  const out = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}
