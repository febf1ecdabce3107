# The parts of an nginx.conf and of its start that the loopback nginx servers share (source it):
# nginx-world.sh, Tests/web/serve-directory.sh and the country benchmark. Each server keeps its
# state (conf, pid, logs, temporary files) in one directory and never touches /etc/nginx.

# nginx_head DIR WORKERS CONNECTIONS: the main context. Workers run as root when we are root
# (they must read the served directory); otherwise the user directive is meaningless.
nginx_head() {
  if [ "$(id -u)" = 0 ]; then echo "user root;"; fi
  printf 'daemon off;\nworker_processes %s;\npid %s/nginx.pid;\nerror_log %s/error.log warn;\n' "$2" "$1" "$1"
  printf 'events { worker_connections %s; }\n' "$3"
}

# nginx_temp_paths TMP: every temporary path inside TMP (nginx's defaults are under /var/lib).
nginx_temp_paths() {
  for kind in client_body proxy fastcgi uwsgi scgi; do
    printf '    %s_temp_path %s;\n' "$kind" "$1"
  done
}

# nginx_exec DIR [DIE_WITH_PARENT]: becomes nginx in the foreground (DIR/nginx.conf). With
# DIE_WITH_PARENT 1 (the default) the kernel sends it SIGTERM when the launcher dies: a watcher
# process would keep the launcher's end of any inherited descriptor open after nginx exits
# (Foundation's Process waits for that).
nginx_exec() {
  if [ "${2:-1}" = 1 ] && command -v setpriv >/dev/null 2>&1; then
    exec setpriv --pdeathsig TERM /usr/sbin/nginx -p "$1" -c "$1/nginx.conf"
  fi
  exec /usr/sbin/nginx -p "$1" -c "$1/nginx.conf"
}
