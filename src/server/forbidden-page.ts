/**
 * What a browser gets without a valid token: no app, no data, but the way back in. The page
 * avoids naming anything secret and carries no script.
 */
export const FORBIDDEN_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Forbidden</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#222}code{background:#eee;padding:0 .25rem;border-radius:3px}</style>
</head><body>
<h1>This address needs a fresh link</h1>
<p>The address you opened has no valid access token, or its token was replaced.</p>
<p>To get a working address, look in the terminal where the server runs for the line
<code>Open http://127.0.0.1:…/?token=…</code> and open that address. If the server is not running,
start it again with <code>npm run serve</code>; it prints the address again (the token stays the same
until the server is started with <code>--new-token</code>).</p>
</body></html>
`
