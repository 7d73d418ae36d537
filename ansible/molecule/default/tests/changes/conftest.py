"""The changes stage (tests/changes/<suite>): the playbook again with other settings, each run
without the monitoring role's tasks (ANSIBLE_SKIP_TAGS=fox_avatar_monitoring, site.yml's tag). The
monitoring settings stay as converged (Nginx keeps its stub_status listener and fallback feed);
what the role does is tests/converged's, and its tasks cost about 35 s per run on this machine,
which this stage's runs (seven on Debian 12, six on 13) need not pay."""
import foxmol

foxmol.ENV["ANSIBLE_SKIP_TAGS"] = "fox_avatar_monitoring"
