// What @hey-api/openapi-ts generates from the service's OpenAPI document (./heyapi/), compiled
// with tsc --strict by tests/test_typescript_client.py: nullable references read `X | null`,
// and an operation's call is typed from the document.
import { getProgrammeResult } from "./heyapi/sdk.gen";
import type { CategoryRef, Programme, Registration, RegistrationTopicStatus } from "./heyapi/types.gen";

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export const nullableCategory: Same<Programme["category"], CategoryRef | null> = true;
export const nullableTopicStatus: Same<Registration["topicStatus"], RegistrationTopicStatus | null> = true;

// The places of a programme, or undefined while the copy held is current (a 304).
export async function placesOf(programCode: string, etag?: string) {
  const { data, response } = await getProgrammeResult({
    query: { programCode, subFestSlug: "general" },
    headers: etag ? { "If-None-Match": etag } : undefined,
  });
  if (response.status === 304) return undefined;
  return data?.results.map((entry) => entry.position);
}
