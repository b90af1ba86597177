#!/bin/bash
# Run by the postgres image once, when its data directory is created (/docker-entrypoint-initdb.d):
# the runtime role of each service (roles.psql), owner = POSTGRES_USER, who migrates the schemas.
# The passwords come from docker-compose.yml; the image ignores roles.psql itself (not *.sql).
set -euo pipefail
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v owner="$POSTGRES_USER" \
  -v gateway_role=voice_gateway -v gateway_password="$VOICE_GATEWAY_DB_PASSWORD" \
  -v agents_role=voice_agents -v agents_password="$VOICE_AGENTS_DB_PASSWORD" \
  -v conversations_role=voice_conversations -v conversations_password="$VOICE_CONVERSATIONS_DB_PASSWORD" \
  -v notifications_role=voice_notifications -v notifications_password="$VOICE_NOTIFICATIONS_DB_PASSWORD" \
  -f "$(dirname "${BASH_SOURCE[0]}")/roles.psql"
