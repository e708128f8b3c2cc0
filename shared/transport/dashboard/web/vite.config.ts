import { defineConfig } from "vite";

// The build lands in ../dist/app, which the Go package embeds (go:embed) and
// serves at /; ../dist itself is tracked (with a placeholder) so the embed
// pattern always matches, and app/ is rebuilt by `make` before Go builds.
export default defineConfig({
  base: "/",
  build: {
    outDir: "../dist/app",
    emptyOutDir: true,
    // No inline script anywhere: the page's Content-Security-Policy allows
    // scripts from 'self' only.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
