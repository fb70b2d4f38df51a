# bench/lib/source.sh: one source's servers and cases; sourced by bench/run
# (which defines log, die, rec, PIDS, stop_pid and the settings).

CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)

# --- servers -------------------------------------------------------------------
SERVE_PID=""
start_bg() { # start_bg DB REFRESH LOG PORT APORT [ARGS...]: starts serve, sets SERVE_PID and SERVE_START
	local db=$1 refresh=$2 logf=$3 port=$4 aport=$5
	shift 5
	port_busy "$port" && die "port $port is still in use: another serve did not stop"
	SERVE_START=$(date +%s%N)
	"${SERVER_PIN[@]}" "$BIN/flagpole" serve --db "$db" --addr "127.0.0.1:$port" --admin-addr "127.0.0.1:$aport" \
		--access-log=false --log-format json --refresh "$refresh" --snapshot-daily=false "$@" \
		>"$logf.out" 2>"$logf" &
	SERVE_PID=$!
	PIDS+=("$SERVE_PID")
}

wait_ready() { # wait_ready PID START LOG PORT: sets READY_JSON once /readyz is 200 and the trends are loaded
	local pid=$1 start=$2 logf=$3 port=$4
	if ! READY_JSON=$("$BIN/freshness" ready -full -url "http://127.0.0.1:$port/readyz" -start-ns "$start" -timeout 900s); then
		tail -20 "$logf" >&2
		die "flagpole serve on port $port did not become ready"
	fi
	kill -0 "$pid" 2>/dev/null || { tail -20 "$logf" >&2; die "flagpole serve exited (is port $port free?)"; }
	# /readyz can answer before the log lines are written.
	for _ in $(seq 100); do
		grep -q '"msg":"first load done"' "$logf" && break
		sleep 0.05
	done
	if [[ $READY_JSON == *'"trendsLoadedField":true'* ]]; then
		for _ in $(seq 100); do
			grep -q '"msg":"trend history loaded"' "$logf" && break
			sleep 0.05
		done
	fi
}

start_serve() { # start_serve DB REFRESH LOG: the measured instance on PORT; sets SERVE_PID, READY_JSON
	start_bg "$1" "$2" "$3" "$PORT" "$APORT"
	wait_ready "$SERVE_PID" "$SERVE_START" "$3" "$PORT"
}

# start_shared DB DIR N: N instances with --redis on PORT+2, +4, +6 (admin
# +1 each), sharing a key prefix new to this run, trusting 127.0.0.1 as
# their proxy; sets SHARED_PIDS and SHARED_URLS.
SHARED_PIDS=()
SHARED_URLS=()
start_shared() {
	local db=$1 dir=$2 n=$3 i port starts=() logs=()
	REDIS_PREFIX=flagpole-bench-$(head -c 4 /dev/urandom | od -An -tx1 | tr -d ' \n'):
	SHARED_PIDS=()
	SHARED_URLS=()
	for ((i = 1; i <= n; i++)); do
		port=$((PORT + 2 * i))
		start_bg "$db" "$IDLE_REFRESH" "$dir/serve-redis-$i.log" "$port" $((port + 1)) \
			--redis "$FLAGPOLE_TEST_REDIS" --redis-prefix "$REDIS_PREFIX" --trusted-proxies 127.0.0.1/32
		SHARED_PIDS+=("$SERVE_PID")
		SHARED_URLS+=("http://127.0.0.1:$port")
		starts+=("$SERVE_START")
		logs+=("$dir/serve-redis-$i.log")
	done
	for ((i = 1; i <= n; i++)); do
		wait_ready "${SHARED_PIDS[i - 1]}" "${starts[i - 1]}" "${logs[i - 1]}" $((PORT + 2 * i))
	done
	log "[$SRC] $n instance(s) with --redis (prefix $REDIS_PREFIX) ready"
}

# start_nginx DIR: Debian's nginx in front of SHARED_URLS, as a child of
# this script with its own prefix and configuration; sets NGINX_PID.
NGINX_PID=""
start_nginx() {
	local dir=$1/nginx servers="" u
	mkdir -p "$dir"
	for u in "${SHARED_URLS[@]}"; do servers+="    server ${u#http://};"$'\n'; done
	cat >"$dir/nginx.conf" <<CONF
# bench/run's nginx: round robin over the instances, keep-alive
# connections to them, X-Forwarded-For appended (the instances trust
# 127.0.0.1), no access log (the instances run without theirs too).
worker_processes auto;
daemon off;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/body;
  proxy_temp_path $dir/proxy;
  fastcgi_temp_path $dir/fastcgi;
  uwsgi_temp_path $dir/uwsgi;
  scgi_temp_path $dir/scgi;
  upstream flagpole {
$servers    keepalive 64;
  }
  upstream ceiling {
    server 127.0.0.1:$CPORT;
    keepalive 64;
  }
  server {
    listen 127.0.0.1:$NPORT;
    location / {
      proxy_pass http://flagpole;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host \$host;
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
    }
  }
  # The ceiling through the same nginx: what nginx itself costs.
  server {
    listen 127.0.0.1:$((NPORT + 1));
    location / {
      proxy_pass http://ceiling;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
CONF
	"${SERVER_PIN[@]}" "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" 2>"$dir/stderr.log" &
	NGINX_PID=$!
	PIDS+=("$NGINX_PID")
	"$BIN/freshness" ready -url "http://127.0.0.1:$NPORT/healthz" -timeout 30s >/dev/null ||
		{ cat "$dir/stderr.log" "$dir/error.log" >&2 2>/dev/null; die "nginx did not start"; }
	log "[$SRC] nginx $("$NGINX" -v 2>&1 | sed 's/.*version: //') on :$NPORT in front of ${SHARED_URLS[*]}"
}

# redis_info SECTION: Redis's INFO section, through the test URL (with
# redis-cli; nothing without it).
redis_info() {
	command -v redis-cli >/dev/null || return 0
	redis-cli -u "$FLAGPOLE_TEST_REDIS" INFO "$1" 2>/dev/null | tr -d '\r' || true
}

# redis_cmdstats: Redis's calls and microseconds by command so far, as
# {"evalsha":{"calls":N,"usec":N},...}, or null.
redis_cmdstats() {
	local out
	out=$(redis_info commandstats | awk -F'[:,=]' '/^cmdstat_/{sub("cmdstat_", "", $1);
		printf "%s\"%s\":{\"calls\":%s,\"usec\":%s}", (n++ ? "," : ""), $1, $3, $5}')
	[[ -n $out ]] && echo "{$out}" || echo null
}

log_line() { # log_line FILE MSG: the first JSON log line with that msg, or null
	local l
	l=$(grep -m1 "\"msg\":\"$2\"" "$1" || true)
	[[ $l == \{* ]] && echo "$l" || echo null
}

proc_mem() { # proc_mem PID: {"rssKB":..,"hwmKB":..}
	awk '/^VmRSS:/{r=$2} /^VmHWM:/{h=$2} END{printf "{\"rssKB\":%d,\"hwmKB\":%d}", r, h}' "/proc/$1/status"
}

# --- wrk ---------------------------------------------------------------------------
WRK_OUT=""
run_wrk() { # run_wrk URL PATHS GZ DURATION: sets WRK_OUT (the done() JSON or null)
	local url=$1 paths=$2 gz=$3 dur=$4 out=$RUN/wrk.out
	WRK_OUT=null
	if "${CLIENT_PIN[@]}" wrk -t"$THREADS" -c"$CONNS" -d"$dur" --latency --timeout 10s -s bench/wrk.lua "$url" -- "$paths" "$RUN/keys" "$gz" >"$out" 2>&1; then
		WRK_OUT=$(sed -n 's/^BENCH_JSON //p' "$out" | tail -1)
		[[ -n $WRK_OUT ]] || WRK_OUT=null
	fi
	if [[ $WRK_OUT == null ]]; then
		log "wrk failed on $url:"
		sed 's/^/    /' "$out" | tail -15 >&2
	fi
}

# cpu_ticks PID...: the CPU time (user + system, in clock ticks) the
# processes have used so far; those gone count 0.
cpu_ticks() {
	local pid t=0 v
	for pid in "$@"; do
		v=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) || v=0
		t=$((t + ${v:-0}))
	done
	echo "$t"
}

# mode_pids MODE: the server-side processes of a mode, as three
# space-separated lists joined by "|": the flagpole instances, nginx's
# (master and workers), Redis.
mode_pids() {
	local ng=""
	[[ -n $NGINX_PID ]] && ng="$NGINX_PID $(pgrep -P "$NGINX_PID" | tr '\n' ' ')"
	case $1 in
	inproc) echo "$INPROC_PID||" ;;
	ceiling-nginx) echo "$CEILING_PID|$ng|" ;;
	redis) echo "${SHARED_PIDS[0]}||$REDIS_PID" ;;
	nginx) echo "${SHARED_PIDS[*]}|$ng|$REDIS_PID" ;;
	*) echo "||" ;;
	esac
}

# cpu_sample MODE: the mode's processes' CPU ticks, "server nginx redis".
cpu_sample() {
	local p s n r
	p=$(mode_pids "$1")
	IFS='|' read -r s n r <<<"$p"
	# shellcheck disable=SC2086 # lists of pids
	echo "$(cpu_ticks $s) $(cpu_ticks $n) $(cpu_ticks $r)"
}

# mode_admins MODE: the admin ports of a mode's flagpole instances.
mode_admins() {
	case $1 in
	inproc) echo "$APORT" ;;
	redis) echo $((PORT + 3)) ;;
	nginx) echo $((PORT + 3)) $((PORT + 5)) $((PORT + 7)) ;;
	esac
}

# gc_seconds MODE: the CPU seconds the Go collector of the mode's flagpole
# instances has used so far (their /metrics), 0 where there is none.
gc_seconds() {
	local p t=0 v
	for p in $(mode_admins "$1"); do
		v=$(curl -fs "http://127.0.0.1:$p/metrics" 2>/dev/null |
			awk '$1 == "go_cpu_classes_gc_total_cpu_seconds_total" {print $2}') || v=0
		t=$(awk -v a="$t" -v b="${v:-0}" 'BEGIN{printf "%.6f", a + b}')
	done
	echo "$t"
}

bench_case() { # bench_case NAME MODE URL PATHS GZ COUNT
	local name=$1 mode=$2 url=$3 paths=$4 gz=$5 count=$6 c0 c1 g0 g1 cpu
	run_wrk "$url" "$paths" "$gz" "$WARMUP" >/dev/null
	c0=$(cpu_sample "$mode")
	g0=$(gc_seconds "$mode")
	run_wrk "$url" "$paths" "$gz" "$DURATION"
	c1=$(cpu_sample "$mode")
	g1=$(gc_seconds "$mode")
	# The CPU seconds the server side used during the measured run, and of
	# them the flagpole instances' collector's.
	cpu=$(awk -v a="$c0" -v b="$c1" -v g0="$g0" -v g1="$g1" -v hz="$CLK_TCK" 'BEGIN{split(a, x, " "); split(b, y, " ");
		printf "{\"server_s\":%.2f,\"server_gc_s\":%.4f,\"nginx_s\":%.2f,\"redis_s\":%.2f}", (y[1]-x[1])/hz, g1-g0, (y[2]-x[2])/hz, (y[3]-x[3])/hz}')
	printf '{"source":"%s","name":"case","case":"%s","mode":"%s","paths":%d,"gzip":%s,"cpu":%s,"wrk":%s}\n' \
		"$SRC" "$name" "$mode" "$count" "$([[ $gz == gzip ]] && echo true || echo false)" "$cpu" "$WRK_OUT" >>"$RECORDS"
	if [[ $WRK_OUT != null ]]; then
		awk -v n="$name" -v m="$mode" -v j="$WRK_OUT" 'BEGIN{
			match(j, /"requests":[0-9]+/); r=substr(j, RSTART+11, RLENGTH-11)
			match(j, /"duration_us":[0-9]+/); d=substr(j, RSTART+14, RLENGTH-14)
			match(j, /"p50":[0-9]+/); p5=substr(j, RSTART+6, RLENGTH-6)
			match(j, /"p99":[0-9]+/); p9=substr(j, RSTART+6, RLENGTH-6)
			match(j, /"status":[0-9]+/); e=substr(j, RSTART+9, RLENGTH-9)
			printf "    %-24s %-7s %9.0f req/s  p50 %7.2f ms  p99 %7.2f ms  non-2xx %s\n", n, m, r/(d/1e6), p5/1000, p9/1000, e
		}' >&2
	fi
}

# ceiling_wrk measures the ceiling again, briefly (WRK_OUT). The ceiling
# server is warm, so no warm-up.
ceiling_wrk() { run_wrk "http://127.0.0.1:$CPORT" "$RUN/$SRC/ceiling.paths" - "$CEIL_CHECK"; }

# ceiling_check is a check of the ceiling: each case's ratios are to the
# checks just before and after it, so that a machine whose speed drifts
# during the run (other work on the cores) skews no ratio.
ceiling_check() {
	ceiling_wrk
	printf '{"source":"%s","name":"case","case":"ceiling-check","paths":1,"gzip":false,"wrk":%s}\n' \
		"$SRC" "$WRK_OUT" >>"$RECORDS"
}

# yardstick_check NAME PATHS GZ: the case's own yardstick, briefly: the
# ceiling server answering the case's paths with the bodies flagpole sent
# for them (bench/plan's yardstick.json) and the contract's headers. Each
# case is measured between two of these, and its ratios "vs its
# yardstick" are to their mean.
yardstick_check() {
	local name=$1 paths=$2 gz=$3
	run_wrk "http://127.0.0.1:$CPORT" "$paths" "$gz" "$CEIL_CHECK"
	printf '{"source":"%s","name":"case","case":"yardstick-check","for":"%s","paths":%d,"gzip":%s,"wrk":%s}\n' \
		"$SRC" "$name" "$(grep -c . "$paths")" "$([[ $gz == gzip ]] && echo true || echo false)" "$WRK_OUT" >>"$RECORDS"
}

# --- one source --------------------------------------------------------------------
create_keys() { # create_keys DB: RUN/keys (what wrk rotates over) and KEY (plan's and freshness's own)
	log "[$SRC] creating $NKEYS keys of $KEY_LIMIT a minute"
	"$BIN/keys" -db "$1" -n "$NKEYS" -limit "$KEY_LIMIT" -name bench >"$RUN/keys" || die "creating keys failed"
	KEY=$("$BIN/keys" -db "$1" -n 1 -limit 100000000 -name bench-plan) || die "creating keys failed"
}

# start_all DB DIR: the in-process instance (measured: time to ready, RSS,
# load costs), then the --redis instances and nginx of the modes asked for.
start_all() {
	local db=$1 dir=$2 n=0
	log "[$SRC] starting flagpole serve (refresh $IDLE_REFRESH)"
	start_serve "$db" "$IDLE_REFRESH" "$dir/serve.log"
	INPROC_PID=$SERVE_PID
	rec ready "$READY_JSON"
	rec proc_load "$(proc_mem "$SERVE_PID")"
	rec first_load_line "$(log_line "$dir/serve.log" "first load done")"
	rec trend_load_line "$(log_line "$dir/serve.log" "trend history loaded")"
	rec metrics_ready "$("$BIN/freshness" metrics -url "http://127.0.0.1:$APORT/metrics" 2>/dev/null || echo null)"
	log "[$SRC] ready: $READY_JSON; $(proc_mem "$SERVE_PID")"
	log "[$SRC] $(log_line "$dir/serve.log" "first load done")"
	log "[$SRC] $(log_line "$dir/serve.log" "trend history loaded")"
	[[ $MODES == *" redis "* ]] && n=1
	[[ $MODES == *" nginx "* ]] && n=$INSTANCES
	SHARED_PIDS=()
	SHARED_URLS=()
	NGINX_PID=""
	REDIS_PID=""
	if ((n > 0)); then
		# Redis's process, when it runs on this machine, for its CPU time.
		REDIS_PID=$(redis_info server | awk -F: '/^process_id:/{print $2+0}')
		[[ -n $REDIS_PID && -r /proc/$REDIS_PID/stat ]] || REDIS_PID=""
		start_shared "$db" "$dir" "$n"
	fi
	if [[ $MODES == *" nginx "* ]]; then
		start_nginx "$dir"
	fi
}

# mode_url MODE: where the mode's requests go.
mode_url() {
	case $1 in
	inproc) echo "$API" ;;
	redis) echo "${SHARED_URLS[0]}" ;;
	nginx) echo "http://127.0.0.1:$NPORT" ;;
	esac
}

# run_cases DIR: the ceiling, then every case in process and each
# production case in the other modes right after it, each between two
# ceiling checks and two checks of the case's own yardstick.
run_cases() {
	local dir=$1 name paths gz count prod ypaths mode
	"${SERVER_PIN[@]}" "$BIN/ceiling" -addr "127.0.0.1:$CPORT" -body "$dir/plan/ceiling-body.json" -paths "$dir/plan/yardstick.json" 2>"$dir/ceiling.log" &
	CEILING_PID=$!
	PIDS+=("$CEILING_PID")
	"$BIN/freshness" ready -url "http://127.0.0.1:$CPORT/" -timeout 30s >/dev/null || die "the ceiling server did not start"
	echo / >"$dir/ceiling.paths"
	echo /headers >"$dir/ceiling-headers.paths"
	log "[$SRC] wrk: $DURATION per case after a $WARMUP warm-up; for $CEIL_CHECK the ceiling again before each case and after the last, and the case's own yardstick before and after it; modes:$MODES"
	bench_case ceiling - "http://127.0.0.1:$CPORT" "$dir/ceiling.paths" - 1
	# The same body with the contract's thirteen headers, fixed: what plain
	# net/http pays for them, the floor under every case of the API.
	ceiling_check
	bench_case ceiling-headers - "http://127.0.0.1:$CPORT" "$dir/ceiling-headers.paths" - 1
	if [[ -n $NGINX_PID ]]; then
		ceiling_check
		bench_case ceiling-via-nginx ceiling-nginx "http://127.0.0.1:$((NPORT + 1))" "$dir/ceiling.paths" - 1
	fi
	# The servers gave their start-up garbage back to the system: let their
	# heaps grow back to the working size before the first case is measured.
	for mode in $MODES; do
		run_wrk "$(mode_url "$mode")" "$dir/plan/flags-default.paths" - "$FIRST_WARMUP"
	done
	local round
	while IFS=$'\t' read -r name paths gz count prod ypaths; do
		if [[ -n $CASES_RE && ! $name =~ $CASES_RE ]]; then continue; fi
		for ((round = 1; round <= ROUNDS; round++)); do
			for mode in $MODES; do
				[[ $mode == inproc || $prod == prod ]] || continue
				ceiling_check
				yardstick_check "$name" "$ypaths" "$gz"
				bench_case "$name" "$mode" "$(mode_url "$mode")" "$paths" "$gz" "$count"
			done
		done
		yardstick_check "$name" "$ypaths" "$gz"
	done <"$dir/plan/cases.tsv"
	ceiling_check
	openloop_cases "$dir"
}

# openloop_cases DIR: each hot case at one fixed rate (bench/openloop),
# its yardstick and then flagpole in process, in turn for
# OPENLOOP_ROUNDS rounds: p50, p90 and p99 at the same throughput, which
# wrk's closed loop cannot give (see bench/openloop). Cases whose
# yardstick answers other paths than flagpole's, or gzip, are left out.
#
# A case whose load fell short of the rate with flagpole carrying less
# than its yardstick (the client saturates first on the larger bodies of
# flags-worst) is measured again at 60 % of the rate, once.
openloop_cases() {
	local dir=$1 name paths gz count prod ypaths out rate
	((OPENLOOP_RATE > 0)) || return 0
	while IFS=$'\t' read -r name paths gz count prod ypaths; do
		if [[ -n $CASES_RE && ! $name =~ $CASES_RE ]] || [[ ! $name =~ $OPENLOOP_RE ]]; then continue; fi
		[[ $paths == "$ypaths" && $gz != gzip ]] || continue
		out=$dir/openloop-$name.json
		for rate in "$OPENLOOP_RATE" $((OPENLOOP_RATE * 6 / 10)); do
			log "[$SRC] open loop: $name at $rate req/s, $OPENLOOP_ROUNDS rounds (yardstick, then flagpole)"
			if ! "${CLIENT_PIN[@]}" bench/openloop -r "$rate" -d "$DURATION" -n "$OPENLOOP_ROUNDS" -json "$out" \
				"$paths" "http://127.0.0.1:$CPORT" "$RUN/keys" "$API" "$RUN/keys" >"$dir/openloop-$name.log" 2>&1; then
				log "[$SRC] open loop: $name failed:"
				tail -5 "$dir/openloop-$name.log" >&2
				break
			fi
			tail -3 "$dir/openloop-$name.log" | sed 's/^/    /' >&2
			python3 -c 'import json, sys; o = json.load(open(sys.argv[1])); sys.exit(o["short"] and o["b"]["rps"] < 0.97 * o["a"]["rps"])' "$out" && break
		done
		[[ -f $out ]] && rec "openloop:$name" "$(cat "$out")"
	done <"$dir/plan/cases.tsv"
}

# stop_shared: the --redis instances' memory and limiter counters, then
# stop them and nginx.
stop_shared() {
	local i pid
	for i in "${!SHARED_PIDS[@]}"; do
		pid=${SHARED_PIDS[i]}
		rec "proc_redis_$((i + 1))" "$(proc_mem "$pid")"
		rec "metrics_redis_$((i + 1))" "$("$BIN/freshness" metrics -url "http://127.0.0.1:$((PORT + 2 * i + 3))/metrics" 2>/dev/null || echo null)"
	done
	[[ -n $NGINX_PID ]] && stop_pid "$NGINX_PID"
	for pid in "${SHARED_PIDS[@]}"; do stop_pid "$pid"; done
	NGINX_PID=""
	SHARED_PIDS=()
}

# swap_phase DB DIR: serve again with --refresh '@every 1s' under a
# background writer: p99 while loads swap in, the cost of a tick, then the
# freshness of a vote.
swap_phase() {
	local db=$1 dir=$2 tsecs fj
	log "[$SRC] restarting serve with --refresh '@every 1s' and a background writer ($WRITE_RATE votes/s)"
	start_serve "$db" "@every 1s" "$dir/serve-swap.log"
	rec ready_swap "$READY_JSON"
	"$BIN/freshness" writer -db "$db" -rate "$WRITE_RATE" >"$dir/writer.json" 2>"$dir/writer.log" &
	local wpid=$!
	PIDS+=("$wpid")
	sleep 2
	rec metrics_swap0 "$("$BIN/freshness" metrics -url "http://127.0.0.1:$APORT/metrics" 2>/dev/null || echo null)"
	sleep 4
	rec metrics_swap1 "$("$BIN/freshness" metrics -url "http://127.0.0.1:$APORT/metrics" 2>/dev/null || echo null)"
	tsecs=$(awk -v a="${SWAP_DURATION%s}" -v b="${WARMUP%s}" 'BEGIN{print a+b+1}')
	"$BIN/freshness" ticks -url "$API/readyz" -duration "${tsecs}s" >"$dir/ticks.json" &
	local tpid=$!
	PIDS+=("$tpid")
	run_wrk "$API" "$dir/plan/flags-default.paths" - "$WARMUP"
	run_wrk "$API" "$dir/plan/flags-default.paths" - "$SWAP_DURATION"
	rec swap_wrk "$WRK_OUT"
	wait "$tpid" || true
	# The ceiling right after, and again after the freshness votes: the
	# p99 under swaps is held to the idle one each over the ceiling's
	# p99 around it, so that the machine's drift over the run is not
	# taken for the swaps' cost.
	ceiling_wrk
	rec swap_ceiling_0 "$WRK_OUT"
	rec ticks "$(cat "$dir/ticks.json" 2>/dev/null || echo null)"
	stop_pid "$wpid"
	rec writer "$(cat "$dir/writer.json" 2>/dev/null | tail -1 || true)"
	log "[$SRC] under swaps: $(sed 's/.*"latency_us"/latency_us/' <<<"$WRK_OUT"); ticks: $(head -c 300 "$dir/ticks.json")"

	log "[$SRC] freshness: $FRESH_VOTES votes at @every 1s"
	fj=$("$BIN/freshness" fresh -db "$db" -api "$API" -key "$KEY" -n "$FRESH_VOTES" 2>"$dir/fresh.log") || {
		cat "$dir/fresh.log" >&2
		fj=null
	}
	rec fresh "$fj"
	log "[$SRC] freshness: $fj"
	ceiling_wrk
	rec swap_ceiling_1 "$WRK_OUT"
	rec proc_swap "$(proc_mem "$SERVE_PID")"
	stop_pid "$SERVE_PID"
}

run_source() { # run_source NAME DBURL
	SRC=$1
	local db=$2 dir=$RUN/$1 warm
	mkdir -p "$dir"
	create_keys "$db"
	start_all "$db" "$dir"
	log "[$SRC] planning the cases"
	warm=$(IFS=,; echo "${SHARED_URLS[*]}")
	"$BIN/plan" -api "$API" -key "$KEY" -out "$dir/plan" -warm "$warm" || die "plan failed"
	rec plan "$(cat "$dir/plan/plan.json")"
	[[ -n $REDIS_PID ]] && rec redis_cmdstats_0 "$(redis_cmdstats)"
	run_cases "$dir"
	[[ -n $REDIS_PID ]] && rec redis_cmdstats_1 "$(redis_cmdstats)"
	rec proc_cases "$(proc_mem "$INPROC_PID")"
	stop_shared
	stop_pid "$INPROC_PID"
	swap_phase "$db" "$dir"
	stop_pid "$CEILING_PID"
}
