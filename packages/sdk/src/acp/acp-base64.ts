/** Bytes as standard base64 (ACP `ImageContent.data`, MCP image/audio content `data`), in any runtime. */
export function base64(data: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < data.length; i += 0x8000) binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
  return btoa(binary);
}
