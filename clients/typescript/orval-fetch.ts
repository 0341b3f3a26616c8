// The fetch that orval's client calls (orval.config.ts names it): the generated code asks for
// paths alone (/public-api/v1/...), so the site says once where the service is and which
// festival's key to send.
let origin = "";
let apiKey = "";

export function useFestival(serviceOrigin: string, key: string): void {
  origin = serviceOrigin.replace(/\/$/, "");
  apiKey = key;
}

export const festivalFetch = async <T>(path: string, options: RequestInit): Promise<T> => {
  const headers = new Headers(options.headers);
  headers.set("X-API-Key", apiKey);
  const response = await fetch(origin + path, { ...options, headers });
  // A 304 has no body: the copy the site holds is current.
  const body = [204, 205, 304].includes(response.status) ? null : await response.text();
  return { status: response.status, data: body ? JSON.parse(body) : {}, headers: response.headers } as T;
};
