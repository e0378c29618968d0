# The fleet examples of docs/FLEET.md (dist/fleet/), checked by the tools
# that read them:
#   Ansible     ansible-playbook --syntax-check (ansible-core)
#   Prometheus  promtool check config / check rules, and promtool test rules
#               (the alerts fire on the series they are meant for)
#   Kubernetes  kubeconform and kubectl are not in Debian: the manifests are
#               parsed with python3-yaml and checked by structure; the
#               ConfigMap's profile is checked by memctl itself.
# The Kubernetes scrape job is YAML-checked only: Debian's promtool is
# built without Kubernetes service discovery.
. "$(dirname "$0")/../integration/lib.sh"
FLEET=$SRC/dist/fleet
T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT

# --- Ansible ---
if command -v ansible-playbook > /dev/null; then
	for pb in "$FLEET"/ansible/*.yml; do
		ANSIBLE_HOME=$T_TMP/ansible ANSIBLE_LOCAL_TEMP=$T_TMP/ansible/tmp \
			ansible-playbook --syntax-check -i localhost, "$pb" > "$T_TMP/ansible.log" 2>&1
		rc=$?
		check_rc $rc 0 "ansible-playbook --syntax-check $(basename "$pb")"
		[ $rc -eq 0 ] || cat "$T_TMP/ansible.log"
	done
else
	fail "ansible-playbook missing (scripts/setup.sh installs ansible-core)"
fi

# --- Prometheus ---
if command -v promtool > /dev/null; then
	promtool check config "$FLEET/prometheus/prometheus.yml" > "$T_TMP/prom.log" 2>&1
	rc=$?; check_rc $rc 0 "promtool check config prometheus.yml (and the rule files it names)"; [ $rc -eq 0 ] || cat "$T_TMP/prom.log"
	promtool check rules "$FLEET/prometheus/memctl-rules.yml" > "$T_TMP/prom.log" 2>&1
	rc=$?; check_rc $rc 0 "promtool check rules memctl-rules.yml"; [ $rc -eq 0 ] || cat "$T_TMP/prom.log"
	cp "$FLEET/prometheus/memctl-rules.yml" "$SRC/tests/dist/memctl-rules.test.yml" "$T_TMP/"
	(cd "$T_TMP" && promtool test rules memctl-rules.test.yml) > "$T_TMP/prom.log" 2>&1
	rc=$?; check_rc $rc 0 "promtool test rules: each alert fires where it should and not elsewhere"; [ $rc -eq 0 ] || cat "$T_TMP/prom.log"
else
	fail "promtool missing (scripts/setup.sh installs prometheus)"
fi

# --- Kubernetes and the scrape job, by structure ---
python3 - "$FLEET" "$T_TMP/profile.yaml" > "$T_TMP/k8s.log" 2>&1 <<'PY'
import sys, yaml
fleet, profile_out = sys.argv[1], sys.argv[2]
bad = []
def need(cond, what):
    print(("ok - " if cond else "not ok - ") + what)
    if not cond:
        bad.append(what)

docs = [d for d in yaml.safe_load_all(open(fleet + "/k8s/daemonset.yaml")) if d]
kinds = {d["kind"]: d for d in docs}
need(set(kinds) == {"ConfigMap", "DaemonSet"}, "daemonset.yaml holds a ConfigMap and a DaemonSet")
ds, cm = kinds.get("DaemonSet", {}), kinds.get("ConfigMap", {})
need(ds.get("apiVersion") == "apps/v1", "DaemonSet is apps/v1")
spec = ds.get("spec", {})
tmpl = spec.get("template", {})
pod = tmpl.get("spec", {})
sel = spec.get("selector", {}).get("matchLabels", {})
labels = tmpl.get("metadata", {}).get("labels", {})
need(sel and all(labels.get(k) == v for k, v in sel.items()), "selector matches the pod labels")
need(pod.get("hostPID") is True, "hostPID")
vols = {v["name"]: v for v in pod.get("volumes", [])}
containers = {c["name"]: c for c in pod.get("containers", []) + pod.get("initContainers", [])}
for c in containers.values():
    for m in c.get("volumeMounts", []):
        need(m["name"] in vols, "%s mounts volume %s, which exists" % (c["name"], m["name"]))
mc = containers.get("memctl", {})
need(mc.get("securityContext", {}).get("privileged") is True, "memctl container is privileged")
mounts = {m["mountPath"]: m for m in mc.get("volumeMounts", [])}
cg = mounts.get("/sys/fs/cgroup")
need(cg is not None and not cg.get("readOnly", False)
     and vols[cg["name"]].get("hostPath", {}).get("path") == "/sys/fs/cgroup",
     "the host's /sys/fs/cgroup is mounted read-write at /sys/fs/cgroup")
cmd = mc.get("command", []) + mc.get("args", [])
need(cmd[:2] == ["memctl", "run"], "the container runs memctl run")
prof = cmd[-1] if cmd else ""
pm = [m for p, m in mounts.items() if prof.startswith(p.rstrip("/") + "/")]
need(len(pm) == 1 and vols[pm[0]["name"]].get("configMap", {}).get("name") == cm.get("metadata", {}).get("name"),
     "the profile %s comes from the ConfigMap" % prof)
key = prof.rsplit("/", 1)[-1]
need(key in cm.get("data", {}), "the ConfigMap has the key %s" % key)
open(profile_out, "w").write(cm.get("data", {}).get(key, ""))
exp = cmd[cmd.index("--export") + 1] if "--export" in cmd else ""
em = [m for p, m in mounts.items() if exp.startswith(p.rstrip("/") + "/")]
need(len(em) == 1, "the export file %s is on a volume" % exp)
ne = containers.get("node-exporter", {})
nm = [m for m in ne.get("volumeMounts", []) if em and m["name"] == em[0]["name"]]
need(nm and "--collector.textfile.directory=" + nm[0]["mountPath"] in ne.get("args", []),
     "node-exporter reads the textfile directory memctl writes")
ports = [p["containerPort"] for p in ne.get("ports", [])]
ann = tmpl.get("metadata", {}).get("annotations", {})
need(ann.get("prometheus.io/scrape") == "true" and int(ann.get("prometheus.io/port", 0)) in ports,
     "the scrape annotations name node-exporter's port")

sc = yaml.safe_load(open(fleet + "/prometheus/prometheus-kubernetes.yml"))
job = (sc.get("scrape_configs") or [{}])[0]
need(job.get("kubernetes_sd_configs", [{}])[0].get("role") == "pod", "scrape job discovers pods")
keep = [r for r in job.get("relabel_configs", []) if r.get("action") == "keep"
        and r.get("source_labels") == ["__meta_kubernetes_pod_label_app_kubernetes_io_name"]]
need(keep and keep[0].get("regex") == labels.get("app.kubernetes.io/name"),
     "scrape job keeps the DaemonSet's pods by their label")
sys.exit(1 if bad else 0)
PY
rc=$?
cat "$T_TMP/k8s.log"
T_CHECKS=$((T_CHECKS + $(grep -c '^ok - \|^not ok - ' "$T_TMP/k8s.log")))
T_FAILS=$((T_FAILS + $(grep -c '^not ok - ' "$T_TMP/k8s.log")))
[ $rc -eq 0 ] || [ "$(grep -c '^not ok - ' "$T_TMP/k8s.log")" -gt 0 ] || fail "manifest check crashed"
"$MEMCTL" check "$T_TMP/profile.yaml" > /dev/null
check_rc $? 0 "the ConfigMap's profile passes memctl check"

# --- metric names: the rules use what memctl export writes ---
# This host's export, plus the export of the fake v2 tree of test 25 (its
# golden file): families such as PSI exist only where the host has them.
"$MEMCTL" export > "$T_TMP/export.prom" 2> "$T_TMP/export.err"
rc=$?; check_rc $rc 0 "memctl export"; [ $rc -eq 0 ] || cat "$T_TMP/export.err"
cat "$SRC/tests/golden/export-fake-v2.prom" >> "$T_TMP/export.prom"
for m in $(grep -o 'memctl_[a-z0-9_]*' "$FLEET/prometheus/memctl-rules.yml" | sort -u); do
	grep -q "^# TYPE $m " "$T_TMP/export.prom" && pass "memctl export writes $m" ||
		fail "memctl-rules.yml uses $m, which memctl export does not write"
done

summary
