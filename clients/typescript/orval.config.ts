// orval's fetch client of the service, as a site generates it: its calls go through
// festivalFetch (orval-fetch.ts), which adds the service's origin and the festival's key
// (the document's paths are whole: /public-api/v1/...).
import { defineConfig } from "orval";

export default defineConfig({
  festival: {
    input: "openapi.json",
    output: {
      target: "orval/api.ts",
      client: "fetch",
      override: { mutator: { path: "orval-fetch.ts", name: "festivalFetch" } },
    },
  },
});
