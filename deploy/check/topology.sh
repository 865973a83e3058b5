#!/usr/bin/env bash
# The deploy check's hosts: `topology.sh up` makes the bridge and one network namespace
# per host with its address; `topology.sh down` kills every process inside them and
# removes them, the bridge and the check's files. Safe to run twice, or after a crash.
set -uo pipefail
BRIDGE=dobon-br0
NET=198.18.0          # /24 inside 198.18.0.0/15, the benchmarking range
WORK=/tmp/dobon-deploy-check
# host name, last byte of its address
HOSTS="client:2 edge:10 app1:21 app2:22 beat:31 data:40"

up() {
  set -e
  ip link add "$BRIDGE" type bridge
  ip link set "$BRIDGE" up
  for entry in $HOSTS; do
    name=${entry%%:*}; byte=${entry##*:}
    ns=dobon-$name
    ip netns add "$ns"
    ip link add "dv-$name" type veth peer name eth0 netns "$ns"
    ip link set "dv-$name" master "$BRIDGE" up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$NET.$byte/24" dev eth0
    ip -n "$ns" link set eth0 up
  done
  mkdir -p "$WORK"
  chmod 0755 "$WORK"
}

down() {
  local ns pids
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep '^dobon-' || true); do
    pids=$(ip netns pids "$ns" 2>/dev/null || true)
    [ -n "$pids" ] && kill -9 $pids 2>/dev/null
    # A process killed above may take a moment to leave the namespace.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
      sleep 0.2
    done
    ip netns del "$ns" 2>/dev/null
  done
  for name in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | grep '^dv-' | cut -d@ -f1); do
    ip link del "$name" 2>/dev/null
  done
  ip link del "$BRIDGE" 2>/dev/null
  rm -rf "$WORK"
  return 0
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  *) echo "usage: $0 up|down" >&2; exit 2 ;;
esac
