// Node's ESM loader wants file extensions; generated clients import "./client.gen" as
// bundlers take it. Registered with `node --import ./extensionless.mjs`, this hook tries
// ".js" and "/index.js" for a relative import that names no file.
import { register } from "node:module";

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    const missing = ["ERR_MODULE_NOT_FOUND", "ERR_UNSUPPORTED_DIR_IMPORT"].includes(error?.code);
    if (!missing || !specifier.startsWith(".")) throw error;
    for (const suffix of [".js", "/index.js"]) {
      try {
        return await nextResolve(specifier + suffix, context);
      } catch {
        // the next form
      }
    }
    throw error;
  }
}

if (!process.env.__EXTENSIONLESS_HOOK) {
  process.env.__EXTENSIONLESS_HOOK = "1";
  register(import.meta.url);
}
