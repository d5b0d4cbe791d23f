#!/usr/bin/env bash
# Sign in to Alibaba Cloud with the job's GitHub OIDC token instead of an AccessKey (docs/operations.md#credentials):
# RAM's AssumeRoleWithOIDC trades it for STS credentials of the role ALIBABA_CLOUD_ROLE_ARN, whose trust policy
# names the repository's OIDC identity provider ALIBABA_CLOUD_OIDC_PROVIDER_ARN and this job's environment.
#
#   1. GitHub's ID token (audience ALIBABA_OIDC_AUDIENCE, default sts.aliyuncs.com, the IdP's client id) is written
#      to $RUNNER_TEMP/alibaba-oidc-token, readable by the job's user only, and rewritten every
#      ALIBABA_OIDC_REFRESH_SECONDS (120) until the job ends: the token lives minutes, a deploy hours.
#   2. ack-ram-tool, the ACK kubeconfigs' exec plugin, reads ALIBABA_CLOUD_ROLE_ARN, ALIBABA_CLOUD_OIDC_PROVIDER_ARN
#      and ALIBABA_CLOUD_OIDC_TOKEN_FILE itself (its default credential chain), and assumes the role afresh.
#   3. pulumi-alicloud reads those variables only inside an assumeRoleWithOidc provider block, which would put each
#      environment's role in the stack's provider inputs (a diff on every preview); it reads ALICLOUD_CREDENTIALS_URI
#      instead, served here on 127.0.0.1:ALIBABA_CREDENTIALS_PORT (6666) by `ack-ram-tool export-credentials --serve`.
#
# The background processes' ids go to $RUNNER_TEMP/alibaba-oidc.pids; the runner ends them with the job. GitHub
# hands out ID tokens only to jobs granted `id-token: write`.
set -euo pipefail

missing=()
for name in ACTIONS_ID_TOKEN_REQUEST_URL ACTIONS_ID_TOKEN_REQUEST_TOKEN ALIBABA_CLOUD_ROLE_ARN ALIBABA_CLOUD_OIDC_PROVIDER_ARN RUNNER_TEMP; do
  [ -n "${!name:-}" ] || missing+=("$name")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "::error::Alibaba Cloud OIDC sign-in: ${missing[*]} unset (the role and IdP ARNs are the environment's variables; the job needs id-token: write; docs/operations.md#credentials)"
  exit 1
fi

audience="${ALIBABA_OIDC_AUDIENCE:-sts.aliyuncs.com}"
token_file="$RUNNER_TEMP/alibaba-oidc-token"
port="${ALIBABA_CREDENTIALS_PORT:-6666}"
pids="$RUNNER_TEMP/alibaba-oidc.pids"
export ALIBABA_OIDC_AUDIENCE="$audience" ALIBABA_CLOUD_OIDC_TOKEN_FILE="$token_file"

fetch_token() {
  local response
  response=$(curl --fail --silent --show-error --retry 3 \
    --header "Authorization: bearer $ACTIONS_ID_TOKEN_REQUEST_TOKEN" \
    "${ACTIONS_ID_TOKEN_REQUEST_URL}&audience=${ALIBABA_OIDC_AUDIENCE}")
  (umask 077 && python3 -c 'import json, sys; print(json.loads(sys.argv[1])["value"])' "$response" > "$ALIBABA_CLOUD_OIDC_TOKEN_FILE.new")
  mv -f -- "$ALIBABA_CLOUD_OIDC_TOKEN_FILE.new" "$ALIBABA_CLOUD_OIDC_TOKEN_FILE"
}

fetch_token
export -f fetch_token
interval="${ALIBABA_OIDC_REFRESH_SECONDS:-120}"
nohup bash -c "while sleep $interval; do fetch_token || echo 'alibaba-oidc: token refresh failed' >&2; done" \
  > "$RUNNER_TEMP/alibaba-oidc-refresh.log" 2>&1 &
echo $! > "$pids"

nohup ack-ram-tool export-credentials --serve "127.0.0.1:$port" > "$RUNNER_TEMP/alibaba-credentials.log" 2>&1 &
echo $! >> "$pids"
for _ in $(seq 1 30); do
  if curl --fail --silent --output /dev/null "http://127.0.0.1:${port}/"; then
    echo "Alibaba Cloud: signed in as $ALIBABA_CLOUD_ROLE_ARN by OIDC; credentials at http://127.0.0.1:${port}/"
    exit 0
  fi
  sleep 1
done
echo "::error::ack-ram-tool export-credentials did not serve credentials on 127.0.0.1:$port within 30 s:"
cat "$RUNNER_TEMP/alibaba-credentials.log"
exit 1
