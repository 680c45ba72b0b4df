// Runs a Python script under the real MicroPython interpreter (the WebAssembly
// port from npm) with baulk's device packages mounted at /lib/baulk, the way
// they sit on the board.
//
//   node micropython.mjs [--heap BYTES] [--file PATH]... [--lib DIR] [--romfs IMAGE]
//                        [--stepped] SCRIPT.py [ARGS...]
//
// --file copies a host file into the interpreter's filesystem at the same
// path, so the script can open() it.  --lib mounts DIR (for example a tree of
// .mpy files built by mpy-cross) at /lib instead of the baulk sources.
// --romfs IMAGE mounts a ROMFS image at /rom, the way a board's read-only flash
// partition is mounted: .mpy files there run in place, their bytecode is not
// copied into the heap, and /rom/lib comes before /lib on sys.path.
// --stepped calls the script's step() again and again, until it returns a
// false value, with a garbage collection at top level before each call: this
// port can only collect garbage between calls, because the WebAssembly stack
// cannot be scanned while Python code runs.  The script's stdout and stderr are
// passed through byte for byte; the exit status is the script's SystemExit
// code (0 when it ends normally, 1 on an uncaught exception).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const PKG = "@micropython/micropython-webassembly-pyscript";

async function loadModule() {
  const roots = [];
  if (process.env.BAULK_NODE_MODULES) roots.push(process.env.BAULK_NODE_MODULES);
  for (let d = here; ; d = dirname(d)) {
    roots.push(join(d, "node_modules"));
    if (dirname(d) === d) break;
  }
  for (const r of roots) {
    const entry = join(r, PKG, "micropython.mjs");
    try {
      statSync(entry);
      return await import(pathToFileURL(entry).href);
    } catch {
      // try the next root
    }
  }
  throw new Error(`${PKG} is not installed (run 'make node_modules')`);
}

function mountTree(FS, hostDir, guestDir) {
  FS.mkdirTree(guestDir);
  for (const name of readdirSync(hostDir)) {
    const src = join(hostDir, name);
    const st = statSync(src);
    if (st.isDirectory()) {
      if (name !== "__pycache__" && name !== "tests" && name !== "vectors") mountTree(FS, src, `${guestDir}/${name}`);
    } else if (name.endsWith(".py") || name.endsWith(".mpy") || name.endsWith(".bin")) {
      FS.writeFile(`${guestDir}/${name}`, readFileSync(src));
    }
  }
}

function makeSink(stream) {
  let buf = Buffer.alloc(1 << 16);
  let n = 0;
  const flush = () => {
    if (n) stream.write(Buffer.from(buf.subarray(0, n)));
    n = 0;
  };
  const put = (bytes) => {
    for (const b of bytes) {
      if (n === buf.length) flush();
      buf[n++] = b;
    }
  };
  return { put, flush };
}

const argv = process.argv.slice(2);
let heap = 1 << 20;
const files = [];
let libDir = null;
let stepped = false;
let romfs = null;
while (argv.length && argv[0].startsWith("--")) {
  const opt = argv.shift();
  if (opt === "--heap") heap = Number(argv.shift());
  else if (opt === "--file") files.push(argv.shift());
  else if (opt === "--lib") libDir = argv.shift();
  else if (opt === "--stepped") stepped = true;
  else if (opt === "--romfs") romfs = argv.shift();
  else {
    process.stderr.write(`micropython.mjs: unknown option ${opt}\n`);
    process.exit(2);
  }
}
if (!argv.length) {
  process.stderr.write("usage: micropython.mjs [--heap BYTES] [--file PATH]... SCRIPT.py [ARGS...]\n");
  process.exit(2);
}
const script = resolve(argv[0]);
const out = makeSink(process.stdout);
const err = makeSink(process.stderr);
const { loadMicroPython } = await loadModule();
const options = { heapsize: heap, linebuffer: false, stdout: out.put, stderr: err.put };
if (romfs) options.romfs = new Uint8Array(readFileSync(resolve(romfs)));
const mp = await loadMicroPython(options);

const top = resolve(here, "..", "..");  // host/sim/ -> the checkout
if (libDir) {
  mountTree(mp.FS, resolve(libDir), "/lib");
} else {
  mp.FS.mkdirTree("/lib/baulk");
  mp.FS.writeFile("/lib/baulk/__init__.py", "");
  for (const part of ["firmware", "protocol"]) mountTree(mp.FS, join(top, part), `/lib/baulk/${part}`);
}
for (const f of [script, ...files]) {
  const abs = resolve(f);
  mp.FS.mkdirTree(dirname(abs));
  mp.FS.writeFile(abs, readFileSync(abs));
}

let status = 0;
const pyArgv = JSON.stringify([script, ...argv.slice(1)]);
try {
  mp.runPython(
    `import sys\nsys.argv.clear()\nsys.argv.extend(${pyArgv})\nif '/lib' not in sys.path: sys.path.append('/lib')\n` +
    `sys.path.insert(0, ${JSON.stringify(dirname(script))})\n` +
    `__file__ = ${JSON.stringify(script)}\n__name__ = '__main__'\n` +
    `exec(open(${JSON.stringify(script)}).read(), globals())\n`,
  );
  if (stepped) {
    for (;;) {
      mp.runPython("import gc\ngc.collect()");
      mp.runPython("__more = step()");
      if (!mp.globals.get("__more")) break;
    }
  }
} catch (e) {
  const text = String(e.message || e);
  const m = /SystemExit: (\d+)\s*$/.exec(text);
  if (m) status = Number(m[1]);
  else if (/SystemExit\s*$/.test(text)) status = 0;
  else {
    err.put(Buffer.from(text.endsWith("\n") ? text : text + "\n"));
    status = 1;
  }
}
out.flush();
err.flush();
process.exitCode = status;
