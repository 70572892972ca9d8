// The interactive API reference: Swagger UI (swagger-ui-dist, served by
// ./[asset]) over /openapi.json. Nothing is loaded from another origin. ./[asset] serves the
// accessibility fixes it needs (issue 26).
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Tron invoicing</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="stylesheet" href="/docs/a11y.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

export const GET = async () => new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } });
