'use client';

import QRCode from 'qrcode';
import { useMemo } from 'react';

// Scanners need a light border of four modules around the code.
const QUIET_ZONE = 4;

/** An SVG QR code, drawn as one path; always dark on white, which every scanner reads. */
export function QrCode({ value, label }: { value: string; label: string }) {
  const { size, path } = useMemo(() => {
    const { modules } = QRCode.create(value, { errorCorrectionLevel: 'M' });
    const cells: string[] = [];
    for (let y = 0; y < modules.size; y++) {
      for (let x = 0; x < modules.size; x++) if (modules.get(y, x)) cells.push(`M${x + QUIET_ZONE} ${y + QUIET_ZONE}h1v1h-1z`);
    }
    return { size: modules.size + 2 * QUIET_ZONE, path: cells.join('') };
  }, [value]);
  return (
    <svg role="img" aria-label={label} data-qr-value={value} viewBox={`0 0 ${size} ${size}`} shapeRendering="crispEdges" className="h-auto w-full max-w-56 rounded-lg">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
  );
}
