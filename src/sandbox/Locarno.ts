/**
 * A slice of the Locarno classification (the international classification of industrial designs):
 * real class codes and titles, each with product names that fit it. The dataset draws designs from
 * these; the search index matches class codes by prefix.
 */

/** A Locarno subclass with the products the dataset names in it. */
export interface LocarnoSubclass {
  readonly code: string
  readonly title: string
  readonly products: ReadonlyArray<string>
}

/** The subclasses designs are drawn from. */
export const subclasses: ReadonlyArray<LocarnoSubclass> = [
  {
    code: "01-01",
    title: "Bakers' products, biscuits, pastry, macaroni and other cereal products, chocolates, confectionery, ices",
    products: ["biscuit", "chocolate", "confectionery", "pastry"]
  },
  {
    code: "02-02",
    title: "Garments",
    products: ["shirt", "dress", "jacket", "trousers", "swimsuit", "coat", "clothing"]
  },
  { code: "02-03", title: "Headwear", products: ["hat", "cap", "helmet", "visor"] },
  { code: "02-04", title: "Footwear, socks and stockings", products: ["shoe", "boot", "sandal", "sock", "shoe sole"] },
  { code: "02-05", title: "Neckties, scarves, neckerchiefs and handkerchiefs", products: ["necktie", "scarf"] },
  { code: "02-06", title: "Gloves", products: ["glove", "mitten"] },
  {
    code: "03-01",
    title:
      "Trunks, suitcases, briefcases, handbags, keyholders, cases specially designed for their contents, wallets and similar articles",
    products: ["suitcase", "handbag", "wallet", "backpack", "phone case"]
  },
  {
    code: "03-03",
    title: "Umbrellas, parasols, sunshades and walking sticks",
    products: ["umbrella", "parasol", "walking stick"]
  },
  {
    code: "04-02",
    title: "Toilet brushes, brushes for the care of the person and clothes brushes",
    products: ["toothbrush", "hairbrush"]
  },
  { code: "05-05", title: "Padding and stuffing materials", products: ["cushion insert", "padding"] },
  { code: "06-01", title: "Seats", products: ["chair", "stool", "armchair", "sofa", "bench", "office chair"] },
  { code: "06-02", title: "Beds", products: ["bed", "bunk bed", "cot"] },
  { code: "06-03", title: "Tables and similar furniture", products: ["table", "desk", "coffee table"] },
  { code: "06-04", title: "Storage furniture", products: ["cabinet", "wardrobe", "bookcase", "shelving unit"] },
  { code: "06-11", title: "Carpets, mats and rugs", products: ["rug", "mat", "carpet tile"] },
  {
    code: "07-01",
    title: "China, glassware, dishes and other articles of a similar nature",
    products: ["plate", "cup", "bowl", "mug", "drinking glass"]
  },
  {
    code: "07-02",
    title: "Cooking appliances, utensils and containers",
    products: ["frying pan", "saucepan", "kettle", "baking tray"]
  },
  { code: "07-03", title: "Table knives, forks and spoons", products: ["knife", "fork", "spoon"] },
  { code: "08-05", title: "Other tools and implements", products: ["spanner", "screwdriver", "hammer", "pliers"] },
  { code: "08-08", title: "Clamps, supports or mountings for fixing", products: ["bracket", "clamp", "wall mount"] },
  {
    code: "09-01",
    title: "Bottles, flasks, pots, carboys, demijohns, and pressurized containers",
    products: ["bottle", "flask", "jar"]
  },
  {
    code: "09-03",
    title: "Boxes, cases, containers, (preserve) tins or cans",
    products: ["box", "container", "tin", "packaging"]
  },
  { code: "10-02", title: "Watches and wrist watches", products: ["wrist watch", "watch face", "smartwatch"] },
  {
    code: "10-04",
    title: "Other measuring instruments, apparatus and devices",
    products: ["thermometer", "scale", "gauge"]
  },
  { code: "11-01", title: "Jewellery", products: ["ring", "necklace", "earring", "bracelet", "pendant"] },
  { code: "12-08", title: "Motor cars, buses and lorries", products: ["car", "truck", "bus", "vehicle body"] },
  { code: "12-11", title: "Cycles and motorcycles", products: ["bicycle", "motorcycle", "scooter"] },
  {
    code: "12-16",
    title: "Parts, equipment and accessories for vehicles, not included in other classes or subclasses",
    products: ["wheel", "car mirror", "bumper", "roof rack"]
  },
  {
    code: "13-02",
    title: "Power transformers, rectifiers, batteries and accumulators",
    products: ["battery", "charger", "power bank"]
  },
  {
    code: "13-03",
    title: "Equipment for distribution or control of electric power",
    products: ["power outlet", "switch", "plug"]
  },
  {
    code: "14-02",
    title: "Data processing equipment as well as peripheral apparatus and devices",
    products: ["computer", "keyboard", "computer mouse", "laptop"]
  },
  {
    code: "14-03",
    title: "Communications equipment, wireless remote controls and radio amplifiers",
    products: ["mobile phone", "remote control", "router", "headset"]
  },
  {
    code: "14-04",
    title: "Screen displays and icons",
    products: ["graphical user interface", "icon", "screen display"]
  },
  {
    code: "15-05",
    title: "Washing, cleaning and drying machines",
    products: ["washing machine", "dishwasher", "dryer"]
  },
  { code: "16-06", title: "Optical articles", products: ["spectacles", "sunglasses", "spectacle frame"] },
  { code: "17-03", title: "Stringed instruments", products: ["guitar", "violin", "ukulele"] },
  {
    code: "19-06",
    title:
      "Materials and instruments for writing by hand, for drawing, for painting, for sculpture, for engraving and for other artistic techniques",
    products: ["pen", "pencil", "marker"]
  },
  { code: "20-02", title: "Display and sales equipment", products: ["display stand", "shop display"] },
  { code: "21-01", title: "Games and toys", products: ["toy", "puzzle", "board game", "doll"] },
  {
    code: "21-02",
    title: "Gymnastics and sports apparatus and equipment",
    products: ["surfboard", "skateboard", "tennis racquet", "exercise machine"]
  },
  { code: "21-03", title: "Other amusement and entertainment articles", products: ["swing", "slide", "trampoline"] },
  { code: "23-01", title: "Fluid distribution equipment", products: ["tap", "valve", "pipe fitting"] },
  { code: "23-02", title: "Sanitary appliances", products: ["toilet", "basin", "shower head", "bath"] },
  {
    code: "23-04",
    title: "Ventilation and air-conditioning equipment",
    products: ["fan", "air conditioner", "air purifier"]
  },
  {
    code: "24-01",
    title: "Apparatus and equipment for doctors, hospitals and laboratories",
    products: ["medical device", "syringe", "stethoscope"]
  },
  { code: "25-01", title: "Building materials", products: ["brick", "roof tile", "paver"] },
  {
    code: "25-02",
    title: "Prefabricated or pre-assembled building parts",
    products: ["window frame", "door", "panel"]
  },
  {
    code: "26-05",
    title: "Lamps, standard lamps, chandeliers, wall and ceiling fixtures, lampshades, reflectors",
    products: ["lamp", "light fitting", "lampshade", "chandelier"]
  },
  { code: "27-01", title: "Tobacco, cigars and cigarettes", products: ["cigarette packet"] },
  {
    code: "28-03",
    title: "Toilet articles and beauty parlour equipment",
    products: ["razor", "hair dryer", "hair straightener"]
  },
  {
    code: "29-02",
    title: "Equipment for safety and rescue, not elsewhere specified",
    products: ["safety vest", "life jacket"]
  },
  { code: "30-01", title: "Animal clothing", products: ["dog coat", "horse rug"] },
  { code: "30-99", title: "Miscellaneous", products: ["pet bed", "pet bowl", "dog lead"] },
  {
    code: "31-00",
    title: "Machines and appliances for preparing food or drink",
    products: ["coffee machine", "blender", "toaster", "juicer"]
  },
  {
    code: "32-00",
    title: "Graphic symbols and logos, surface patterns, ornamentation",
    products: ["logo", "surface pattern", "ornament"]
  }
]

/** A code with its punctuation removed and lower-cased: `06-01` and `0601` read the same. */
export const normalizeCode = (code: string): string => code.toLowerCase().replace(/[^0-9a-z]/g, "")
