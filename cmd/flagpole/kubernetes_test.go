package main

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/flagpole/flagpole/config"
	"github.com/flagpole/flagpole/loader"
)

// The Kubernetes manifests and the image's Dockerfile, from this package.
const (
	manifestsDir = "../../docs/deploy/kubernetes"
	dockerfile   = "../../Dockerfile"
)

// manifests reads every object of the manifests' files, by kind.
func manifests(t *testing.T) (map[string]map[string]any, []string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(manifestsDir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s (%v)", manifestsDir, err)
	}
	objs := map[string]map[string]any{}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var o map[string]any
			if err := dec.Decode(&o); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			kind, _ := o["kind"].(string)
			if _, dup := objs[kind]; dup {
				t.Fatalf("two objects of kind %s: the test reads one of each", kind)
			}
			objs[kind] = o
		}
	}
	return objs, names
}

// dig walks a decoded YAML document by keys and list indexes.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// number is a YAML integer as an int, -1 when it is not one.
func number(v any) int {
	if n, ok := v.(int); ok {
		return n
	}
	return -1
}

// imageEnv is the ENV of the Dockerfile's last stage, the image's.
func imageEnv(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	text = text[strings.LastIndex(text, "\nFROM "):]
	env := map[string]string{}
	m := regexp.MustCompile(`(?m)^ENV ((?:[^\n]*\\\n)*[^\n]*)`).FindStringSubmatch(text)
	if m == nil {
		t.Fatal("the Dockerfile's image sets no ENV")
	}
	for _, kv := range strings.Fields(strings.ReplaceAll(m[1], "\\\n", " ")) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return env
}

// portOf is the port of a listen address.
func portOf(t *testing.T, addr string) int {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return n
}

// TestKubernetesManifests: the manifests run the server as its
// configuration says. The container's ports are the addresses the image,
// the ConfigMap and the environment give serve; the probes ask paths the
// server answers, on the API's port; the startup probe allows a first
// load of a million flags ten times over; the grace period covers the
// drain; GOMEMLIMIT comes from the memory limit; a PodDisruptionBudget
// covers the pods; the public Service leaves the admin port out; and the
// image's HEALTHCHECK is the healthcheck command.
func TestKubernetesManifests(t *testing.T) {
	objs, files := manifests(t)
	for _, kind := range []string{"Deployment", "Service", "PodDisruptionBudget", "ConfigMap", "NetworkPolicy", "Kustomization"} {
		if objs[kind] == nil {
			t.Fatalf("no %s in %s", kind, manifestsDir)
		}
	}
	var listed []string
	for _, r := range dig(objs["Kustomization"], "resources").([]any) {
		listed = append(listed, r.(string))
	}
	for _, f := range files {
		if f != "kustomization.yaml" && !slices.Contains(listed, f) {
			t.Errorf("kustomization.yaml does not list %s", f)
		}
	}

	dep := objs["Deployment"]
	pod := dig(dep, "spec", "template", "spec")
	c := dig(pod, "containers", 0)
	ports := map[string]int{}
	for _, p := range dig(c, "ports").([]any) {
		ports[dig(p, "name").(string)] = number(dig(p, "containerPort"))
	}
	// The settings serve resolves in the container: the image's ENV, the
	// manifest's env, the ConfigMap's file; the secret's file stands in.
	env := imageEnv(t)
	dir := t.TempDir()
	for _, e := range dig(c, "env").([]any) {
		if v, ok := dig(e, "value").(string); ok {
			env[dig(e, "name").(string)] = v
		}
	}
	cfgFile := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfgFile, []byte(dig(objs["ConfigMap"], "data", "config.yaml").(string)), 0o644); err != nil {
		t.Fatal(err)
	}
	if env["FLAGPOLE_CONFIG"] != "/etc/flagpole/config/config.yaml" || env["FLAGPOLE_DB_FILE"] == "" {
		t.Fatalf("the container reads its settings from %q and its database from %q", env["FLAGPOLE_CONFIG"], env["FLAGPOLE_DB_FILE"])
	}
	env["FLAGPOLE_CONFIG"] = cfgFile
	env["FLAGPOLE_DB_FILE"] = writeFile(t, "url", "postgres://flagpole@db/flagpole\n")
	fs := newFlagSet("serve", config.Serve)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Resolve(fs, mapEnv(env))
	if err != nil {
		t.Fatalf("the container's configuration: %v", err)
	}
	if portOf(t, cfg.Addr) != ports["http"] || portOf(t, cfg.AdminAddr) != ports["admin"] {
		t.Errorf("serve listens on %s and %s; the container's ports are %v", cfg.Addr, cfg.AdminAddr, ports)
	}

	probes := map[string]string{"startupProbe": "/readyz", "readinessProbe": "/readyz", "livenessProbe": "/healthz"}
	for probe, path := range probes {
		if got, port := dig(c, probe, "httpGet", "path"), dig(c, probe, "httpGet", "port"); got != path || port != "http" {
			t.Errorf("%s asks %v on port %v, want %s on http", probe, got, port, path)
		}
	}
	budget := time.Duration(number(dig(c, "startupProbe", "periodSeconds"))*number(dig(c, "startupProbe", "failureThreshold"))) * time.Second
	if budget < 5*time.Minute {
		t.Errorf("the startup probe allows %s, want at least 5 minutes (a million flags: 33 s measured, ten times that)", budget)
	}
	grace := time.Duration(number(dig(pod, "terminationGracePeriodSeconds"))) * time.Second
	if need := cfg.ShutdownDelay + cfg.ShutdownTimeout + 5*time.Second; grace < need {
		t.Errorf("terminationGracePeriodSeconds %s, want at least shutdown_delay + shutdown_timeout + 5 s = %s", grace, need)
	}
	if s := dig(dep, "spec", "strategy", "rollingUpdate", "maxUnavailable"); number(s) != 0 {
		t.Errorf("a roll may take %v pods out before new ones are ready, want 0", s)
	}
	gomem := false
	for _, e := range dig(c, "env").([]any) {
		if dig(e, "name") == "GOMEMLIMIT" && dig(e, "valueFrom", "resourceFieldRef", "resource") == "limits.memory" {
			gomem = true
		}
	}
	if !gomem || dig(c, "resources", "limits", "memory") == nil {
		t.Error("GOMEMLIMIT is not taken from the container's memory limit, or there is none")
	}

	labels := dig(dep, "spec", "selector", "matchLabels")
	if pdb := objs["PodDisruptionBudget"]; dig(pdb, "spec", "selector", "matchLabels") == nil ||
		!sameLabels(dig(pdb, "spec", "selector", "matchLabels"), labels) || number(dig(pdb, "spec", "maxUnavailable")) != 1 {
		t.Errorf("the PodDisruptionBudget %v does not let one pod of %v go at a time", dig(pdb, "spec"), labels)
	}
	svc := objs["Service"]
	if !sameLabels(dig(svc, "spec", "selector"), labels) {
		t.Errorf("the Service selects %v, the pods are %v", dig(svc, "spec", "selector"), labels)
	}
	for _, p := range dig(svc, "spec", "ports").([]any) {
		if tp := dig(p, "targetPort"); tp != "http" && number(tp) != ports["http"] {
			t.Errorf("the public Service exposes the container's port %v; only http belongs there", tp)
		}
	}

	// The probes' paths and the image's HEALTHCHECK, against a server.
	r := newLiveRig(t, loader.SQLite)
	s := startServe(t, noEnv, "--db", r.dbURL, "--addr", "127.0.0.1:0", "--access-log=false", "--snapshot-daily=false")
	base := listenAddr(t, s)
	waitReady(t, s, base)
	for probe, path := range probes {
		if st, _ := get(t, base+path, ""); st != 200 {
			t.Errorf("%s's %s on a ready server: %d", probe, path, st)
		}
	}
	docker, _ := os.ReadFile(dockerfile)
	hc := regexp.MustCompile(`(?m)^HEALTHCHECK .*CMD \["/flagpole", "healthcheck"\]$`).Find(docker)
	if hc == nil {
		t.Fatal("the Dockerfile has no HEALTHCHECK running /flagpole healthcheck")
	}
	if res := runCLI(t, noEnv, nil, "healthcheck", "--addr", strings.TrimPrefix(base, "http://")); res.err != nil {
		t.Errorf("healthcheck of a ready server: %v", res.err)
	}
}

// sameLabels reports whether two decoded label maps are equal.
func sameLabels(a, b any) bool {
	ma, ok1 := a.(map[string]any)
	mb, ok2 := b.(map[string]any)
	if !ok1 || !ok2 || len(ma) != len(mb) || len(ma) == 0 {
		return false
	}
	for k, v := range ma {
		if mb[k] != v {
			return false
		}
	}
	return true
}

// TestAdminAddressKeptPrivate: the commands of the deployment guide, the
// README and the Dockerfile never publish the admin address (metrics,
// pprof) on every interface of a host.
func TestAdminAddressKeptPrivate(t *testing.T) {
	public := regexp.MustCompile(`-p (0\.0\.0\.0:)?9090:9090|--admin-addr[ =](0\.0\.0\.0|\[::\])?:[0-9]`)
	block := regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	for _, f := range []string{"../../docs/deploy.md", "../../README.md", "../../docs/cli.md", dockerfile} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		commands := b // the Dockerfile's comments are its commands
		if strings.HasSuffix(f, ".md") {
			commands = nil
			for _, m := range block.FindAllSubmatch(b, -1) {
				commands = append(commands, m[1]...)
			}
		}
		if m := public.Find(commands); m != nil {
			t.Errorf("%s publishes the admin address on every interface: %q", f, m)
		}
	}
}
