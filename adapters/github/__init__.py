"""The live GitHub source: merged PRs of a window through PyGithub, in a handful of GraphQL requests.

``source.GitHubPullRequestSource`` implements :class:`chatbot.ports.PullRequestSource`; ``mapping``
turns GraphQL payloads into domain PRs (pure), ``search`` builds search strings and splits windows
(pure), ``queries`` holds the GraphQL documents, ``transport`` the PyGithub client, request counting
and the rate-limit/retry policy.
"""
