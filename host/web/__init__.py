"""The web side (aiohttp): the boards, the API, the console and the desk.

Owns: the server and its doors (``app``: the app, the connection guard at the
door, security headers, TLS), what every area shares (``http``), and one
module an area, each registering its own routes: the boards and the live feed
(``boards``), the API's reads and the report pages (``api``), the gate every
request passes and the sign-in (``auth``: credentials, the role table's
check, the activity log; ``console_session``: cookies and CSRF;
``throttle``: the guessing cap), the console's actions (``console``, through
``operator``), the desk (``desk``), the players (``players``), the handset
(``handset``), the pockets' sensors (``sensors``) and the owner's pages
(``staff_pages``).  The pages and their scripts are in
``static/``.

May import: every layer before it: ``venue``, ``handset``, ``config``,
``staff``, ``club``, ``referee``, ``store``, ``link`` and the shared modules.  Never
``mqtt`` or ``cli``.
"""
