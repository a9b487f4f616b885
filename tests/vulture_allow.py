"""Names vulture cannot see used: frameworks and protocols use them, not our code (read by vulture only).

Regenerate the candidates with ``vulture --make-whitelist`` and keep only what a framework uses;
anything else vulture reports is dead code to delete. Groups: pydantic ``model_config`` and fields
read by serialisation or by ``getattr`` (rules path classes); SQLAlchemy ``TypeDecorator`` hooks and
columns filled by the database; Jinja2 template helpers (called from ``chatbot/render/templates``);
signatures fixed by protocols (``__exit__``, signal handlers, pydantic-settings); Flask ``app.<ext>``
attributes; the fakes' HTTP handler hooks (``do_GET``, ``_m_<method>`` dispatch by name).
"""
# Not importable (bare names): vulture parses it, nothing runs it.
# ruff: noqa
model_config  # unused variable (adapters/github/mapping.py:27)
_.not_modified  # unused attribute (adapters/github/transport.py:54)
_.not_modified  # unused attribute (adapters/github/transport.py:60)
_._Requester__httpConnectionClass  # unused attribute (adapters/github/transport.py:116)
_._Requester__httpsConnectionClass  # unused attribute (adapters/github/transport.py:117)
impl  # unused variable (adapters/storage/schema.py:67)
cache_ok  # unused variable (adapters/storage/schema.py:68)
_.process_bind_param  # unused method (adapters/storage/schema.py:70)
_.process_result_value  # unused method (adapters/storage/schema.py:78)
type_annotation_map  # unused variable (adapters/storage/schema.py:90)
created_at  # unused variable (adapters/storage/schema.py:146)
created_at  # unused variable (adapters/storage/schema.py:184)
exc_type  # unused variable (adapters/storage/store.py: SqlStore.__exit__)
tb  # unused variable (adapters/storage/store.py: SqlStore.__exit__)
model_config  # unused variable (chatbot/cards/model.py:29)
created_at  # unused variable (chatbot/deliveries.py:64)
COUNT_KINDS  # unused variable (chatbot/history.py:18)
top_modules  # unused variable (chatbot/history.py:106)
top_risk_tags  # unused variable (chatbot/history.py:107)
model_config  # unused variable (chatbot/models.py:30)
created_at  # unused variable (chatbot/models.py:73)
model_config  # unused variable (chatbot/queries.py:72)
model_config  # unused variable (chatbot/queries.py:179)
_.data_uri  # unused method (chatbot/render/html.py:47)
_.linkify  # unused method (chatbot/render/html.py:122)
_.paren  # unused method (chatbot/render/html.py:114)
_.prev_week  # unused method (chatbot/render/html.py:154)
_.stat_delta  # unused method (chatbot/render/html.py:157)
_.stat_vs  # unused method (chatbot/render/html.py:166)
_.reverted_in_week  # unused property (chatbot/models.py:390): the lead line of digest.md.j2 and report.html.j2
_.counts_vs  # unused method (chatbot/render/html.py:175)
_.directions  # unused method (chatbot/render/html.py:196)
_.pct  # unused method (chatbot/render/html.py:204)
_.risk_counts  # unused method (chatbot/render/markdown.py:83)
_.tag_names  # unused method (chatbot/render/markdown.py:89)
_.names_pr  # unused method (chatbot/render/markdown.py:94, chatbot/render/html.py:209)
_.key_in_highlights  # unused property (chatbot/render/markdown.py:108)
_.key_gists  # unused property (chatbot/render/markdown.py:110)
_.short_title  # unused method (chatbot/render/markdown.py:115)
_.directions  # unused method (chatbot/render/markdown.py:98)
model_config  # unused variable (chatbot/rules.py:36)
risk_prs_shown  # unused variable (chatbot/rules.py:112) -- a rules-file key no renderer reads yet (kept: rules files may set it)
source_paths  # unused variable (chatbot/rules.py:153)
test_paths  # unused variable (chatbot/rules.py:154)
docs_paths  # unused variable (chatbot/rules.py:156)
ci_paths  # unused variable (chatbot/rules.py:157)
model_config  # unused variable (chatbot/subscriptions.py:34)
model_config  # unused variable (chatbot/subscriptions.py:61)
frame  # unused variable (prhub/bot.py:383)
_.converter  # unused attribute (prhub/bot.py:432)
model_config  # unused variable (prhub/config.py)
slack_app_token  # unused variable (prhub/config.py)
feishu_verification_token  # unused variable (prhub/config.py)
feishu_encrypt_key  # unused variable (prhub/config.py)
prhub_database_url  # unused variable (prhub/config.py)
_.settings_customise_sources  # unused method (prhub/config.py)
dotenv_settings  # unused variable (prhub/config.py)
file_secret_settings  # unused variable (prhub/config.py)
model_config  # unused variable (scheduler/config.py:50)
retry_at  # unused variable (scheduler/jobs.py:79)
_.retry_at  # unused attribute (scheduler/jobs.py:172)
executemany  # unused variable (tests/adapters/storage/test_sql_store.py:174)
parameters  # unused variable (tests/adapters/storage/test_sql_store.py:174)
_._validation_errors  # unused attribute (tests/fakes/github_server.py:62)
protocol_version  # unused variable (tests/fakes/loopback.py:31)
disable_nagle_algorithm  # unused variable (tests/fakes/loopback.py:32)
_.log_message  # unused method (tests/fakes/loopback.py:34)
_.do_GET  # unused method (tests/fakes/loopback.py:37)
_.do_POST  # unused method (tests/fakes/loopback.py:40)
_.daemon_threads  # unused attribute (tests/fakes/loopback.py:44)
_._m_auth_test  # unused method (tests/fakes/slack_server.py:249)
_._m_conversations_open  # unused method (tests/fakes/slack_server.py:253)
_._m_chat_postMessage  # unused method (tests/fakes/slack_server.py:259)
_._m_views_publish  # unused method (tests/fakes/slack_server.py)
_._m_conversations_replies  # unused method (tests/fakes/slack_server.py:279)
_._m_conversations_history  # unused method (tests/fakes/slack_server.py:294)
_._m_files_getUploadURLExternal  # unused method (tests/fakes/slack_server.py:337)
_._m_files_completeUploadExternal  # unused method (tests/fakes/slack_server.py:350)
ref_number  # unused variable (chatbot/risks/base.py:36) -- RiskFinding data: the reverted/fixed PR, for consumers of findings (issue 10 item 1)
_._reconnect_interval  # unused attribute (adapters/feishu/long_connection.py:70) -- set for the SDK (lark-oapi ws client, slack_sdk Socket Mode client, protobuf frame fields) or a settings field read by the webhook
_._reconnect_nonce  # unused attribute (adapters/feishu/long_connection.py:72) -- set for the SDK (lark-oapi ws client, slack_sdk Socket Mode client, protobuf frame fields) or a settings field read by the webhook
_._ping_interval  # unused attribute (adapters/feishu/long_connection.py:74) -- set for the SDK (lark-oapi ws client, slack_sdk Socket Mode client, protobuf frame fields) or a settings field read by the webhook
_._reconnect_count  # unused attribute (adapters/feishu/long_connection.py:76) -- set for the SDK (lark-oapi ws client, slack_sdk Socket Mode client, protobuf frame fields) or a settings field read by the webhook
_._auto_reconnect  # unused attribute (adapters/feishu/long_connection.py:157) -- set for the SDK (lark-oapi ws client, slack_sdk Socket Mode client, protobuf frame fields) or a settings field read by the webhook
_.auto_reconnect_enabled  # unused attribute (adapters/slack/socket_mode.py:62) -- set for the SDK (lark-oapi ws client, slack_sdk Socket Mode client, protobuf frame fields) or a settings field read by the webhook
github_webhook_secret  # unused variable (prhub/config.py) -- set for the SDK (lark-oapi ws client, slack_sdk Socket Mode client, protobuf frame fields) or a settings field read by the webhook
_.SeqID  # unused attribute (tests/fakes/feishu_ws.py:51) -- set for the SDK (lark-oapi ws client, slack_sdk Socket Mode client, protobuf frame fields) or a settings field read by the webhook
_.LogID  # unused attribute (tests/fakes/feishu_ws.py:52) -- set for the SDK (lark-oapi ws client, slack_sdk Socket Mode client, protobuf frame fields) or a settings field read by the webhook
_.service  # unused attribute (tests/fakes/feishu_ws.py:53) -- set for the SDK (lark-oapi ws client, slack_sdk Socket Mode client, protobuf frame fields) or a settings field read by the webhook
_.exc_text  # unused attribute (prhub/guard.py: logging.LogRecord, read by logging.Formatter)
_.stack_info  # unused attribute (prhub/guard.py: logging.LogRecord, read by logging.Formatter)
_._m_conversations_info  # unused method (tests/fakes/slack_socket.py) -- dispatched by name like the other _m_ methods
why  # unused variable (adapters/slack/manifest.py) -- SlackMethod: why prhub calls the method, for readers of the table
_pragmas  # unused function (adapters/storage/engine.py) -- a SQLAlchemy 'connect' event listener
_fresh  # unused function (adapters/storage/engine.py) -- a SQLAlchemy 'connect' event listener
_back  # unused function (adapters/storage/engine.py) -- a SQLAlchemy 'checkin' event listener
_ping  # unused function (adapters/storage/engine.py) -- a SQLAlchemy 'checkout' event listener
pytest_plugins  # unused variable (tests/conftest.py:14): pytest reads it
_._perform_urllib_http_request_internal  # unused method (adapters/slack/delivery.py) -- slack_sdk calls it: the one HTTP exchange of a WebClient
slack_mode  # unused variable (prhub/config.py) -- the config file's chat: keys, read through ChatSection.as_settings (model_dump)
feishu_mode  # unused variable (prhub/config.py) -- the config file's chat: keys, read through ChatSection.as_settings (model_dump)
event_retention_hours  # unused variable (prhub/config.py) -- the config file's chat: keys, read through ChatSection.as_settings (model_dump)
_.close_connection  # unused attribute (tests/fakes/slack_server.py: http.server's BaseHTTPRequestHandler reads it)
_.will_close  # unused attribute (prhub/serving.py: waitress's HTTPChannel reads it and closes the channel)
_.channel_class  # unused attribute (prhub/serving.py: waitress's server builds each connection's channel from it)
